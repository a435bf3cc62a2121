//! `stdout` and `file:PATH`: one JSON line per message. Lines are gathered per chunk and
//! written at `flush` under an exclusive `flock` of the file (so several relays appending to
//! one file never interleave a line), then fsynced when the file is a regular file, before
//! any mark. A write that fails leaves the file as it was: it is cut back to its length before
//! the write, under the same lock, so no partial line stays; a line a writer killed mid-write
//! left unfinished (`kill -9` can stop a write between pages) is cut back, under the lock,
//! before the next write. Out of space (ENOSPC, EDQUOT) means the destination is away; the
//! probe waits for free space. A write the reader of a pipe (stdout, a FIFO) does not take is
//! given up at the publish bound (the relay's wait, not the write: it goes on) and the
//! destination is away until it is done; a pipe whose reader quit (EPIPE) is away too.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use super::{DestinationError, PublishError, Publisher};
use crate::model::Message;
use crate::telemetry::SendTo;

/// One stdout shared by every route that writes there.
pub type StdoutShared = Arc<Mutex<()>>;

enum Target {
    Stdout(StdoutShared),
    File {
        file: Mutex<File>,
        fsync: bool,
        /// A character device (`/dev/null`): a write that never waits, made inline. Anything
        /// else is written from the blocking pool: a pipe's reader may stop reading.
        device: bool,
        /// The size of the last write that found the disk full: the probe waits for that
        /// much free space (and at least [`MIN_FREE`]).
        needed: AtomicU64,
    },
    /// A pipe named by a path: a FIFO, or `/dev/stdout` when stdout is a pipe. Opened for
    /// writing only (never as a reader of its own, which would keep lines nobody reads and
    /// never learn that the reader quit), and again after its reader quit: `None` while no
    /// process reads it.
    Pipe {
        path: PathBuf,
        file: Mutex<Option<File>>,
        /// A pipe with no name (`/dev/stdout` is one): no reader ever comes back to it once
        /// its reader quit, where a FIFO's next reader may.
        anonymous: bool,
    },
}

impl Target {
    /// Whether a reader that quit is gone for good: stdout, or an anonymous pipe.
    fn reader_never_returns(&self) -> bool {
        match self {
            Target::Stdout(_) => true,
            Target::Pipe { anonymous, .. } => *anonymous,
            Target::File { .. } => false,
        }
    }
}

/// The free space a full disk must have again before the file destination is back.
const MIN_FREE: u64 = 64 * 1024;

pub struct Lines {
    target: Arc<Target>,
    pending: Arc<Mutex<Vec<u8>>>,
    /// A write is under way: a pipe whose reader stopped holds it, past the pass that began
    /// it (the relay stops waiting at its publish bound). The next flush writes nothing
    /// and the probe finds the destination down until that write is done.
    writing: Arc<AtomicBool>,
    /// Stdout's reader quit (EPIPE): no reader comes back to a pipe, so the probe finds it
    /// down for good (a looping relay claimed and released the same rows at every probe).
    quit: Arc<AtomicBool>,
    /// How traces name it: `stdout`, or the file's path.
    name: String,
}

impl Lines {
    pub fn stdout(lock: StdoutShared) -> Self {
        Self {
            target: Arc::new(Target::Stdout(lock)),
            pending: Arc::default(),
            writing: Arc::default(),
            quit: Arc::default(),
            name: "stdout".into(),
        }
    }

    pub fn file(path: &Path) -> std::io::Result<Self> {
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            // an anonymous pipe opens without a reader; a FIFO does not
            let file = open_pipe(path)?;
            let anonymous = file.as_ref().is_some_and(is_anonymous_pipe);
            return Ok(Self::over(
                Target::Pipe {
                    path: path.to_owned(),
                    file: Mutex::new(file),
                    anonymous,
                },
                path,
            ));
        }
        // read too, to find a torn last line; write-only where reading is not allowed
        let file = match OpenOptions::new()
            .read(true)
            .create(true)
            .append(true)
            .open(path)
        {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                OpenOptions::new().create(true).append(true).open(path)?
            }
            opened => opened?,
        };
        // A regular file is fsynced before marks; a device such as /dev/null has nothing to sync.
        let kind = file.metadata()?.file_type();
        // a terminal is a device too, but one that can stop taking writes (Ctrl-S)
        let terminal = std::io::IsTerminal::is_terminal(&file);
        let target = Target::File {
            file: Mutex::new(file),
            fsync: kind.is_file(),
            device: kind.is_char_device() && !terminal,
            needed: AtomicU64::new(0),
        };
        Ok(Self::over(target, path))
    }

    fn over(target: Target, path: &Path) -> Self {
        Self {
            target: Arc::new(target),
            pending: Arc::default(),
            writing: Arc::default(),
            quit: Arc::default(),
            name: path.display().to_string(),
        }
    }

    /// What the relay says at its start of a destination that cannot take a line yet: a FIFO
    /// no process reads (its routes wait until one does).
    pub fn check_at_start(&self) -> Option<String> {
        match &*self.target {
            Target::Pipe { file, .. } if file.lock().expect("not poisoned").is_none() => {
                Some(no_reader(&self.name))
            }
            _ => None,
        }
    }
}

/// Opens a pipe for writing without waiting for a reader (`None`: it has none, `ENXIO`), then
/// makes its writes block again: a write the reader does not take waits in the blocking pool.
fn open_pipe(path: &Path) -> std::io::Result<Option<File>> {
    let opened = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    let file = match opened {
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Ok(None),
        opened => opened?,
    };
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on an open descriptor.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above; clears O_NONBLOCK only.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Some(file))
}

/// Whether an open pipe has no name: its file system is the kernel's pipefs.
fn is_anonymous_pipe(file: &File) -> bool {
    const PIPEFS_MAGIC: u32 = 0x5049_5045;
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: fstatfs fills `stat` for an open descriptor, or fails without touching it.
    if unsafe { libc::fstatfs(file.as_raw_fd(), stat.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: initialised by the successful call above.
    let stat = unsafe { stat.assume_init() };
    // the field's type differs between C libraries; the magic number fits in 32 bits
    stat.f_type as u32 == PIPEFS_MAGIC
}

fn no_reader(name: &str) -> String {
    format!("{name} {NO_READER}")
}

impl Publisher for Lines {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let pending = self.pending.clone();
        Box::pin(async move {
            let mut pending = pending.lock().expect("not poisoned");
            message.write_json(&mut pending);
            pending.push(b'\n');
            Ok(())
        })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let (target, pending) = (self.target.clone(), self.pending.clone());
        let (writing, name) = (self.writing.clone(), self.name.clone());
        let quit = self.quit.clone();
        Box::pin(async move {
            let buf = std::mem::take(&mut *pending.lock().expect("not poisoned"));
            if buf.is_empty() {
                return Ok(());
            }
            // A device such as /dev/null takes a write at once: cheaper inline than a hop to
            // the blocking pool.
            if matches!(&*target, Target::File { device: true, .. }) {
                return write_all(&target, &buf);
            }
            if writing.swap(true, Ordering::AcqRel) {
                return Err(PublishError::away(still_writing(&name)));
            }
            tokio::task::spawn_blocking(move || {
                let written = write_all(&target, &buf);
                writing.store(false, Ordering::Release);
                if target.reader_never_returns() && written.as_ref().is_err_and(reader_quit) {
                    quit.store(true, Ordering::Release);
                }
                written
            })
            .await
            .map_err(|e| PublishError::transient(format!("writer task failed: {e}")))?
        })
    }

    fn serial(&self) -> bool {
        true
    }

    fn messaging(&self) -> SendTo<'_> {
        let system = match &*self.target {
            Target::Stdout(_) => "stdout",
            Target::File { .. } | Target::Pipe { .. } => "file",
        };
        SendTo {
            system,
            name: self.name.as_str().into(),
        }
    }

    fn default_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(30)
    }

    /// No write still under way (its reader has taken it), and for a file enough free space
    /// on its file system for the write that found it full.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let target = self.target.clone();
        let still = self
            .writing
            .load(Ordering::Acquire)
            .then(|| still_writing(&self.name));
        let quit = (self.quit.load(Ordering::Acquire)).then(|| {
            format!(
                "{} {READER_QUIT}: nothing written there is read any more",
                self.name
            )
        });
        let name = self.name.clone();
        Box::pin(async move {
            if let Some(why) = still.or(quit) {
                return Err(DestinationError::local(why));
            }
            if let Target::Pipe { path, file, .. } = &*target {
                let mut file = file.lock().expect("not poisoned");
                if file.is_none() {
                    *file = open_pipe(path).map_err(|e| {
                        DestinationError::local(format!("cannot open {name}: {e}")).because(e)
                    })?;
                }
                return match file.is_some() {
                    true => Ok(()),
                    false => Err(DestinationError::local(no_reader(&name))),
                };
            }
            let Target::File { file, needed, .. } = &*target else {
                return Ok(());
            };
            let want = needed.load(Ordering::Relaxed).max(MIN_FREE);
            let free = free_bytes(&file.lock().expect("not poisoned")).map_err(|e| {
                DestinationError::local(format!(
                    "reading the free space of the file's file system: {e}"
                ))
                .because(e)
            })?;
            if free >= want {
                Ok(())
            } else {
                Err(DestinationError::refused(format!(
                    "the file's file system has {free} bytes free, under the {want} a write needs"
                )))
            }
        })
    }
}

fn still_writing(name: &str) -> String {
    format!("{name} has not taken the last write yet (a pipe whose reader stopped reading?)")
}

/// Bytes an unprivileged writer may still use on the file's file system.
fn free_bytes(file: &File) -> std::io::Result<u64> {
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: fstatvfs fills `stat` for an open descriptor, or fails without touching it.
    let rc = unsafe { libc::fstatvfs(file.as_raw_fd(), stat.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: initialised by the successful call above.
    let stat = unsafe { stat.assume_init() };
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Cuts a file of `len` bytes back to the end of its last whole line when its last line is
/// unfinished (a writer killed mid-write); returns the length kept. Its message was never
/// marked delivered, so it goes out again. A file that cannot be read is left as it is.
fn cut_torn_tail(f: &File, len: u64) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut last = [0u8; 1];
    if len == 0 || f.read_exact_at(&mut last, len - 1).is_err() || last[0] == b'\n' {
        return Ok(len);
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut end = len;
    let keep = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.read_exact_at(chunk, start)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            break start + i as u64 + 1;
        }
        end = start;
    };
    f.set_len(keep)?;
    tracing::warn!(
        "cut back {} byte(s) of a half-written last line (a writer killed while writing); its event goes out again",
        len - keep
    );
    Ok(keep)
}

/// Holds an exclusive `flock` on the file while alive: relays appending to one file take
/// turns, so cutting back a failed write never cuts another relay's lines.
struct Flock<'a>(&'a File);

impl<'a> Flock<'a> {
    fn take(file: &'a File) -> std::io::Result<Self> {
        // SAFETY: flock on an open descriptor.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self(file))
    }
}

impl Drop for Flock<'_> {
    fn drop(&mut self) {
        // SAFETY: flock on an open descriptor.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Out of space: the disk is full or the quota spent.
fn is_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
}

/// A pipe's reader quit (`relay --once | head`): no write is read until one comes back (a
/// FIFO's next reader; stdout's, never). Away, like a full disk: no attempt is counted for the
/// rows that could not go (each would otherwise be retried, and parked at `max_attempts`).
fn closed_pipe(what: &str, e: std::io::Error) -> PublishError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        PublishError::away(format!("{what}: {e} {READER_QUIT}"))
    } else {
        PublishError::transient(format!("{what}: {e}"))
    }
}

const READER_QUIT: &str = "(its reader quit)";
/// A FIFO that no process had open for reading when it was opened.
const NO_READER: &str = "(a pipe no process reads)";

/// The pipe's reader quit (`outboxctl replay --to stdout | head`): a closed pipe, which ends a
/// command that writes its data to stdout with exit 0.
pub fn reader_quit(e: &PublishError) -> bool {
    e.is_away() && e.message.ends_with(READER_QUIT)
}

fn write_all(target: &Target, buf: &[u8]) -> Result<(), PublishError> {
    let fail = |what: &str, e: std::io::Error| PublishError::transient(format!("{what}: {e}"));
    match target {
        Target::Stdout(lock) => {
            let _guard = lock.lock().expect("not poisoned");
            let mut out = std::io::stdout().lock();
            out.write_all(buf)
                .and_then(|()| out.flush())
                .map_err(|e| closed_pipe("writing to stdout", e))
        }
        Target::Pipe { path, file, .. } => {
            let mut file = file.lock().expect("not poisoned");
            if file.is_none() {
                *file = open_pipe(path).map_err(|e| fail("opening the pipe", e))?;
            }
            let Some(mut f) = file.as_ref() else {
                return Err(PublishError::away(no_reader(&path.display().to_string())));
            };
            let written = f
                .write_all(buf)
                .map_err(|e| closed_pipe("writing to the pipe", e));
            if written.as_ref().is_err_and(PublishError::is_away) {
                // its reader quit: the next probe opens it again, for a reader that came back
                *file = None;
            }
            written
        }
        Target::File {
            file,
            fsync,
            needed,
            ..
        } => {
            let guard = file.lock().expect("not poisoned");
            let mut f: &File = &guard;
            if !*fsync {
                // a device (/dev/null) or a pipe: nothing to lock, cut back or sync
                return f
                    .write_all(buf)
                    .map_err(|e| closed_pipe("writing to the file", e));
            }
            let _lock = Flock::take(f).map_err(|e| fail("locking the file", e))?;
            let len = f.metadata().map_err(|e| fail("reading the file", e))?.len();
            // under the lock no writer is busy: an unfinished last line is a dead writer's
            let before = cut_torn_tail(f, len).map_err(|e| fail("reading the file's end", e))?;
            let written = f
                .write_all(buf)
                .map_err(|e| ("writing to the file", e))
                .and_then(|()| f.sync_data().map_err(|e| ("fsync of the file", e)));
            let Err((what, e)) = written else {
                return Ok(());
            };
            // Leave the file as it was before this write: no partial line stays behind.
            let cut = f.set_len(before).and_then(|()| f.sync_data());
            let mut message = format!("{what}: {e}");
            if let Err(c) = cut {
                message.push_str(&format!(" (cutting the partial write back failed: {c})"));
            }
            if is_full(&e) {
                needed.store(buf.len() as u64, Ordering::Relaxed);
                Err(PublishError::away(message))
            } else {
                Err(PublishError::transient(message))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_back_to_the_last_whole_one() {
        let path = std::env::temp_dir().join(format!("outboxctl-torn-{}", std::process::id()));
        let len = |p: &Path| std::fs::metadata(p).unwrap().len();
        std::fs::write(&path, b"{\"a\":1}\n{\"b\":2}\n{\"c\":").unwrap();
        let f = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        assert_eq!(cut_torn_tail(&f, len(&path)).unwrap(), 16);
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"a\":1}\n{\"b\":2}\n");
        // whole lines stay as they are
        assert_eq!(cut_torn_tail(&f, len(&path)).unwrap(), 16);
        // a file of one torn line is emptied
        std::fs::write(&path, b"{\"c\":").unwrap();
        assert_eq!(cut_torn_tail(&f, len(&path)).unwrap(), 0);
        assert_eq!(len(&path), 0);
        std::fs::remove_file(&path).unwrap();
    }
}
