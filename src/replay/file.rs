//! A JSON-lines archive written by the `file:` destination as a replay source: read forward
//! line by line (memory bounded by a page), in the order the relay wrote it, filtered here.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;
use uuid::Uuid;

use super::cursor::source_id;
use super::{Cursor, Item, ReplayError, ReplaySource, Selection, ordered_headers};
use crate::Error;
use crate::model::Message;

/// One line as `Message::to_json` writes it.
#[derive(Deserialize)]
struct StoredLine {
    id: Uuid,
    event_id: Uuid,
    route: String,
    #[serde(rename = "type")]
    event_type: String,
    key: String,
    tenant_id: Option<Uuid>,
    payload: Box<RawValue>,
    headers: Pairs,
}

/// A JSON object of strings, in its written order.
pub struct Pairs(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of string headers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut out = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    out.push(pair);
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The message a line holds, exactly as it was written.
pub(super) fn parse_line(text: &str) -> Result<Message, ReplayError> {
    let line: StoredLine =
        serde_json::from_str(text).map_err(|e| ReplayError::Value(e.to_string()))?;
    let ordering_key = (line.key != line.event_id.to_string()).then(|| line.key.clone());
    Ok(Message {
        id: line.id,
        event_id: line.event_id,
        route: line.route,
        event_type: line.event_type,
        key: line.key,
        ordering_key,
        tenant_id: line.tenant_id,
        payload: line.payload,
        headers: ordered_headers(line.headers.0)?,
    })
}

/// A file's [`source_id`]: its path as the filesystem resolves it (as given, when it cannot).
pub fn file_id(path: &Path) -> String {
    let resolved = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    source_id(&resolved.display().to_string())
}

pub struct FileSource {
    path: PathBuf,
    /// The file's [`file_id`], which its cursors carry.
    source: String,
    reader: BufReader<File>,
    /// Lines read so far.
    line: u64,
    selection: Selection,
}

impl FileSource {
    /// Opens the archive after `after` (a line cursor).
    pub fn open(path: &Path, selection: Selection, after: Option<&Cursor>) -> Result<Self, Error> {
        let file = File::open(path).map_err(|source| ReplayError::Archive {
            what: format!("--from file:{}: cannot open it", path.display()),
            source,
        })?;
        let mut this = Self {
            path: path.to_owned(),
            source: file_id(path),
            reader: BufReader::new(file),
            line: 0,
            selection,
        };
        match after {
            None => {}
            Some(Cursor::Line { line: n, .. }) => {
                let mut buf = Vec::new();
                while this.line < *n {
                    buf.clear();
                    if this.read(&mut buf)? == 0 {
                        break;
                    }
                }
            }
            Some(other) => {
                return Err(ReplayError::CursorKind {
                    found: other.source_kind(),
                    expected: "a file: archive",
                }
                .into());
            }
        }
        Ok(this)
    }

    /// Reads one whole line (with its newline); 0 at the end or before a line still being
    /// written (no newline yet), which is given back: the next read starts at its beginning.
    fn read(&mut self, buf: &mut Vec<u8>) -> Result<usize, Error> {
        let failed = |source| ReplayError::Archive {
            what: format!("reading {}", self.path.display()),
            source,
        };
        let n = self.reader.read_until(b'\n', buf).map_err(failed)?;
        if n > 0 && buf.last() != Some(&b'\n') {
            self.reader.seek_relative(-(n as i64)).map_err(failed)?;
            return Ok(0);
        }
        if n == 0 {
            return Ok(0);
        }
        self.line += 1;
        Ok(n)
    }
}

impl ReplaySource for FileSource {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        let mut page = Vec::new();
        let mut buf = Vec::new();
        while page.len() < limit as usize {
            buf.clear();
            if self.read(&mut buf)? == 0 {
                break;
            }
            let at = || format!("{}:{}", self.path.display(), self.line);
            let text = std::str::from_utf8(&buf).map_err(|e| ReplayError::record(at(), e))?;
            if text.trim().is_empty() {
                continue;
            }
            let message = parse_line(text.trim_end()).map_err(|e| {
                ReplayError::record(
                    at(),
                    format!("not a line the file: destination writes: {e}"),
                )
            })?;
            if self.selection.matches(&message, None) {
                page.push(Item {
                    message: Arc::new(message),
                    cursor: Cursor::Line {
                        source: Some(self.source.clone()),
                        line: self.line,
                    },
                    published_at: None,
                });
            }
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line the `file:` destination is still writing is not read until its newline is
    /// there, and then read whole, from its beginning.
    #[tokio::test]
    async fn a_line_still_being_written_is_read_whole_once_it_is() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("outboxctl-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("live.jsonl");
        let line = r#"{"id":"00000000-0000-0000-0000-000000000000","event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","route":"orders","type":"t","key":"k","tenant_id":null,"payload":{},"headers":{}}"#;
        let mut f = File::create(&path).unwrap();
        writeln!(f, "{line}").unwrap();
        f.write_all(&line.as_bytes()[..40]).unwrap();
        f.flush().unwrap();
        let mut source = FileSource::open(&path, Selection::default(), None).unwrap();
        assert_eq!(source.next_page(10).await.unwrap().len(), 1);
        assert!(
            source.next_page(10).await.unwrap().is_empty(),
            "half a line"
        );
        writeln!(f, "{}", &line[40..]).unwrap();
        f.flush().unwrap();
        let page = source.next_page(10).await.unwrap();
        assert_eq!(page.len(), 1, "the line, whole");
        assert_eq!(
            page[0].cursor,
            Cursor::Line {
                source: Some(file_id(&path)),
                line: 2
            }
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_line_reads_back_to_the_same_bytes() {
        let text = concat!(
            r#"{"id":"00000000-0000-0000-0000-000000000000","event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","#,
            r#""route":"orders","type":"order.placed","key":"order-42","tenant_id":null,"#,
            r#""payload":{"total":"19.90","n":12345678901234567890.5},"#,
            r#""headers":{"forze_event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","forze_occurred_at":"2026-12-01T10:00:00+00:00","#,
            r#""forze_hlc":"001764583200000.00003"}}"#
        );
        let m = parse_line(text).unwrap();
        assert_eq!(m.to_json(), text);
        assert_eq!(m.ordering_key.as_deref(), Some("order-42"));
        let no_key = text.replace("order-42", "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
        let m = parse_line(&no_key).unwrap();
        assert_eq!(m.ordering_key, None);
        assert_eq!(m.to_json(), no_key);
        assert!(parse_line(r#"{"id":1}"#).is_err());
    }
}
