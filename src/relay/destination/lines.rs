//! `stdout` and `file:PATH`: one JSON line per message. Lines are gathered per chunk and
//! written at `flush` with one `write` (so several relays appending to one file never
//! interleave a line), then fsynced when the file is a regular file, before any mark.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use super::{PublishError, Publisher};
use crate::model::Message;

/// One stdout shared by every route that writes there.
pub type StdoutShared = Arc<Mutex<()>>;

enum Target {
    Stdout(StdoutShared),
    File { file: Mutex<File>, fsync: bool },
}

pub struct Lines {
    target: Arc<Target>,
    pending: Arc<Mutex<Vec<u8>>>,
}

impl Lines {
    pub fn stdout(lock: StdoutShared) -> Self {
        Self {
            target: Arc::new(Target::Stdout(lock)),
            pending: Arc::default(),
        }
    }

    pub fn file(path: &Path) -> std::io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        // A regular file is fsynced before marks; a device such as /dev/null has nothing to sync.
        let fsync = file.metadata()?.file_type().is_file();
        Ok(Self {
            target: Arc::new(Target::File {
                file: Mutex::new(file),
                fsync,
            }),
            pending: Arc::default(),
        })
    }
}

impl Publisher for Lines {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let pending = self.pending.clone();
        Box::pin(async move {
            let mut line = message.to_json().into_bytes();
            line.push(b'\n');
            pending
                .lock()
                .expect("not poisoned")
                .extend_from_slice(&line);
            Ok(())
        })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let (target, pending) = (self.target.clone(), self.pending.clone());
        Box::pin(async move {
            let buf = std::mem::take(&mut *pending.lock().expect("not poisoned"));
            if buf.is_empty() {
                return Ok(());
            }
            // Without an fsync the write lands in the page cache (or a device such as
            // /dev/null): cheaper inline than a hop to the blocking pool.
            if matches!(&*target, Target::File { fsync: false, .. }) {
                return write_all(&target, &buf);
            }
            tokio::task::spawn_blocking(move || write_all(&target, &buf))
                .await
                .map_err(|e| PublishError::transient(format!("writer task failed: {e}")))?
        })
    }

    fn serial(&self) -> bool {
        true
    }
}

fn write_all(target: &Target, buf: &[u8]) -> Result<(), PublishError> {
    let fail = |what: &str, e: std::io::Error| PublishError::transient(format!("{what}: {e}"));
    match target {
        Target::Stdout(lock) => {
            let _guard = lock.lock().expect("not poisoned");
            let mut out = std::io::stdout().lock();
            out.write_all(buf)
                .and_then(|()| out.flush())
                .map_err(|e| fail("writing to stdout", e))
        }
        Target::File { file, fsync } => {
            let mut f = file.lock().expect("not poisoned");
            f.write_all(buf)
                .map_err(|e| fail("writing to the file", e))?;
            if *fsync {
                f.sync_data().map_err(|e| fail("fsync of the file", e))?;
            }
            Ok(())
        }
    }
}
