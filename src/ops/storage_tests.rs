use super::*;

fn table(name: &str) -> Table {
    let spec = crate::target::RelationSpec::parse("relation", name).unwrap();
    (None, spec.resolve(None).unwrap())
}

fn status(table: &str, next_step: Option<u8>, blockers: &[&str]) -> StorageStatus {
    StorageStatus {
        table: table.into(),
        tenant: None,
        configured_storage: "consume".into(),
        has_processing_at: next_step.is_some(),
        has_published_at: next_step.is_some(),
        processing: 0,
        published: 0,
        published_capped: false,
        reclaim_on: false,
        indexes_on_dropped_columns: vec![],
        depending_on_dropped_columns: vec![],
        next_step,
        blockers: blockers.iter().map(|b| b.to_string()).collect(),
        mismatch: None,
    }
}

#[test]
fn the_step_is_the_one_asked_for_else_the_earliest_any_table_needs() {
    let all = [status("a.o", Some(3), &[]), status("b.o", Some(2), &[])];
    assert_eq!(step_to_run(None, &all), Some(2));
    assert_eq!(step_to_run(Some(1), &all), Some(1));
    assert_eq!(step_to_run(None, &[status("a.o", None, &[])]), None);
    // every table consume-only: no step is left, whichever was asked for (step 2 on one
    // said "step 2 done … then --step 3", which was done)
    assert_eq!(step_to_run(Some(2), &[status("a.o", None, &[])]), None);
}

/// The next step names the columns still there (one dropped by hand: only the other).
#[test]
fn the_next_step_names_the_columns_left_to_drop() {
    let next = |processing_at, published_at| {
        let s = StorageStatus {
            has_processing_at: processing_at,
            has_published_at: published_at,
            ..status("a.o", Some(3), &[])
        };
        let text = s.to_string();
        let line = text.lines().find(|l| l.starts_with("next step:")).unwrap();
        line.to_owned()
    };
    assert!(next(true, true).ends_with("3 — drop processing_at and published_at"));
    assert!(next(false, true).ends_with("3 — drop published_at"));
    assert!(next(true, false).ends_with("3 — drop processing_at"));
}

#[test]
fn blockers_name_their_table_only_when_there_are_several() {
    let one = [status("a.o", Some(3), &["reclaim is on"])];
    assert_eq!(blockers(&one), ["reclaim is on"]);
    let two = [
        status("a.o", Some(3), &["reclaim is on"]),
        status("b.o", None, &[]),
    ];
    assert_eq!(blockers(&two), ["a.o: reclaim is on"]);
}

#[test]
fn a_step_three_stopped_after_some_tables_names_them_and_keeps_its_exit_code() {
    use crate::exit_code::ExitStatus;
    let refused = || Error::Refused("step 3 refused on app.c: rows appeared".into());
    assert_eq!(
        partly_done(refused(), &[]).to_string(),
        refused().to_string()
    );
    let e = partly_done(refused(), &["app.a".into(), "app.b".into()]);
    assert_eq!(
        e.to_string(),
        "step 3 refused on app.c: rows appeared (step 3 already dropped the columns from app.a, app.b: run it again to finish the rest)"
    );
    assert_eq!(e.exit_code(), refused().exit_code());
    let busy = partly_done(Error::LockBusy("gave up".into()), &["app.a".into()]);
    assert_eq!(busy.exit_code(), crate::exit_code::LOCK_BUSY);
    let failed = || Error::pg("step 3 failed on app.c", sqlx::Error::RowNotFound);
    let e = partly_done(failed(), &["app.a".into()]);
    assert!(
        e.to_string().starts_with("step 3 failed on app.c (step 3 already dropped the columns from app.a: run it again to finish the rest): "),
        "{e}"
    );
    assert_eq!(e.exit_code(), failed().exit_code());
}

#[test]
fn step_three_drops_only_what_is_left() {
    let tables = [table("app.a"), table("app.b")];
    let all = [status("app.a", Some(3), &[]), status("app.b", None, &[])];
    let plan = drop_plan(&tables, &all);
    assert_eq!(plan.drops.len(), 1);
    assert_eq!(plan.drops[0].columns, ["processing_at", "published_at"]);
    assert!(plan.blocked.is_empty());
    assert_eq!(plan.what(), "processing_at and published_at from app.a");
    let script = plan.script(DropOptions {
        lock_timeout: Duration::from_millis(500),
        retries: 10,
        check_timeout: Duration::from_secs(2),
    });
    assert!(
        script.starts_with("-- step 3 of the retain → consume move"),
        "{script}"
    );
    assert!(script.contains("psql -v ON_ERROR_STOP=1"), "{script}");
    assert!(
        script.contains("\n\nBEGIN;\nSET LOCAL lock_timeout = '500ms';"),
        "{script}"
    );
    assert!(
        script.contains("ALTER TABLE app.a DROP COLUMN processing_at, DROP COLUMN published_at;")
    );
}
