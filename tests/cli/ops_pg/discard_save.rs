//! `discard --save`: the copy the playbook asks for before a discard, kept by the discard
//! itself. Each row deleted is written whole (payload and every column) and synced before its
//! deletion commits; a copy that cannot be written deletes nothing.

use super::*;

/// The failed rows of route `a` (two, after [`seed`]), as the table holds them, by id.
async fn failed_rows(conn: &mut PgConnection, t: &str) -> Vec<Value> {
    sqlx::query_scalar(&format!(
        "SELECT to_jsonb(o) FROM {t} o WHERE status = 'failed' ORDER BY id"
    ))
    .fetch_all(conn)
    .await
    .unwrap()
}

#[tokio::test]
async fn discard_keeps_each_row_whole_before_deleting_it() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    seed(&mut conn, &t).await;
    // numbers a double would round: the copy keeps every digit, as the table does
    let exact = r#"{"d": 1.10, "n": 123456789012345678901}"#;
    let set = format!("UPDATE {t} SET payload = '{exact}' WHERE status = 'failed'");
    sqlx::raw_sql(&set).execute(&mut conn).await.unwrap();
    let rows = failed_rows(&mut conn, &t).await;
    assert_eq!(rows.len(), 2);
    let copy = out_file(test).with_extension("jsonl");
    let _ = std::fs::remove_file(&copy);
    let save = copy.display().to_string();
    // a dry run names the file and writes nothing
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["discard", "--all", "--save", &save, "--dry-run"],
    );
    assert_eq!(json(&r)["saved_to"], save, "{r:?}");
    assert!(!copy.exists(), "a dry run wrote the copy");
    // a copy that cannot be written (a full disk: /dev/full) deletes nothing, exit 2
    let r = cmd(
        &schema,
        &["--yes"],
        &["discard", "--all", "--save", "/dev/full"],
    );
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr
            .contains("keeping the rows discarded in /dev/full (none of this batch was discarded)"),
        "{r:?}"
    );
    assert_eq!(failed_rows(&mut conn, &t).await, rows, "nothing deleted");
    // a file that cannot be opened: said before anything is deleted
    let r = cmd(
        &schema,
        &["--yes"],
        &["discard", "--all", "--save", "/nonexistent/dir/x.jsonl"],
    );
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("opening /nonexistent/dir/x.jsonl"),
        "{r:?}"
    );
    assert_eq!(failed_rows(&mut conn, &t).await, rows, "nothing deleted");
    let r = cmd(&schema, &["--yes"], &["discard", "--all", "--save", &save]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains(&format!("a copy of each: {save}")),
        "{r:?}"
    );
    assert!(failed_rows(&mut conn, &t).await.is_empty(), "discarded");
    let text = std::fs::read_to_string(&copy).unwrap();
    assert_eq!(
        text.matches(r#""payload": {"d": 1.10, "n": 123456789012345678901}"#)
            .count(),
        2,
        "{text}"
    );
    let mut kept = lines(&copy);
    kept.sort_by_key(|r| r["id"].as_str().unwrap().to_owned());
    assert_eq!(kept, rows, "each row whole, payload and all");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "rows carry payloads: the owner's only");
    // a second discard appends
    stage(&mut conn, &t, "c", 1, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed', last_error = 'x' WHERE outbox_route = 'c'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(
        &schema,
        &["--yes"],
        &["discard", "--all", "--route", "c", "--save", &save],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(lines(&copy).len(), 3, "appended");
    std::fs::remove_file(&copy).unwrap();
}
