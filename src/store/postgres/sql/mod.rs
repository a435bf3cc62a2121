//! The relay's statements for one relation, exactly as `semantics.md` gives them, for retain and
//! consume storage, with the claim written to read about `limit` index entries whatever the
//! backlog (see [`claim_sql`]). Text only: [`super::pass`] sends them.

use std::collections::HashSet;
use std::sync::Arc;

use crate::model::{KeyOrder, Storage};
use crate::target::QualifiedName;

use super::PgStoreOptions;

mod functions;

pub(super) use functions::claim_function_table;
pub use functions::{
    CLAIM_FUNCTION_INFIX, FunctionKind, MARK_FUNCTION_INFIX, PassFunction, calls_functions,
    claim_function, functions, mark_function, no_room_for_functions, pass_function_kind,
};
use functions::{function_of, mark_function_of};

/// The statements for one relation (shared, as the store hands them to its connection).
#[derive(Debug, Clone)]
pub struct PgSql {
    pub claim: Arc<str>,
    /// Whether the claim returns a `candidates` column (the strict claim: rows held back are
    /// counted); otherwise a claim is short when it returns fewer rows than asked for.
    pub claim_counts: bool,
    /// Whether `claim` is a call of the claim's function ([`claim_function`]).
    pub claim_by_function: bool,
    /// Whether `published` is a call of retain's mark function ([`mark_function`]).
    pub published_by_function: bool,
    pub reclaim: Arc<str>,
    pub published: Arc<str>,
    /// What the published step is called in errors: consume deletes, retain marks.
    pub published_step: &'static str,
    /// Whether `published` takes the publish time as `$2` (not for a bare consume DELETE).
    pub published_takes_time: bool,
    pub retry: Arc<str>,
    pub failed: Arc<str>,
    /// Retain only: consume claims write nothing, so a row not published is untouched.
    pub release: Option<Arc<str>>,
}

/// The columns a claim returns, each with its type as the claim returns it (`payload` as text):
/// what [`columns`] selects and a claim function ([`claim_function`]) declares.
fn claim_columns(opts: &PgStoreOptions) -> Vec<(&'static str, &'static str)> {
    let mut cols = vec![
        ("id", "uuid"),
        ("outbox_route", "text"),
        ("event_id", "uuid"),
        ("event_type", "text"),
        ("tenant_id", "uuid"),
        ("execution_id", "uuid"),
        ("correlation_id", "uuid"),
        ("causation_id", "uuid"),
        ("occurred_at", "timestamp with time zone"),
        ("attempts", "integer"),
        ("ordering_key", "text"),
        ("created_at", "timestamp with time zone"),
        ("payload", "text"),
    ];
    if opts.hlc_ordering {
        cols.push(("hlc", "bigint"));
    }
    if opts.propagate_trace {
        cols.push(("traceparent", "text"));
    }
    cols
}

pub(crate) fn columns(opts: &PgStoreOptions, prefix: &str) -> String {
    let cols: Vec<String> = claim_columns(opts)
        .iter()
        .map(|(c, _)| match *c {
            "payload" => format!("{prefix}payload::text AS payload"),
            c => format!("{prefix}{c}"),
        })
        .collect();
    cols.join(", ")
}

/// The rows strict order waits behind (`alias` names the table; `$3` is now): a row with an
/// ordering key that is processing, failed, or pending but not yet due. Shared by the claim
/// and `inspect blocked`.
pub fn blocking_rows(alias: &str) -> String {
    format!(
        "{alias}.ordering_key <> '' AND ({alias}.status IN ('processing', 'failed') OR ({alias}.status = 'pending' AND {alias}.available_at IS NOT NULL AND {alias}.available_at > $3))"
    )
}

/// A pending row whose retry is due (`$3` is now). `available_at IS NOT NULL` changes no result
/// (`<=` is false on NULL) but gives PostgreSQL an estimate it can make without knowing `$3`:
/// the column's share of NULLs, large since retries are rare. So a named statement's generic
/// plan (`prepared_statements: true`) reads the claim index's range as a custom plan does, and
/// PostgreSQL keeps that plan instead of planning every execution. Without it the range is
/// estimated at a third of the table, and the generic plan seq-scans and sorts (about 25 ms
/// against 1 ms for a strict claim on 20,000 rows); [`blocking_rows`] says the same of the
/// retries not yet due.
fn due(alias: &str) -> String {
    format!("{alias}.available_at IS NOT NULL AND {alias}.available_at <= $3")
}

/// The claim's check of the route pauses table (`outbox.registry`): empty without one. An
/// uncorrelated `NOT EXISTS`, so PostgreSQL evaluates it once per statement (a one-time filter
/// over the pauses in force, by their index) and a paused route's claim reads no row.
fn not_paused(opts: &PgStoreOptions) -> String {
    let Some(pauses) = &opts.pauses else {
        return String::new();
    };
    let tenant = if opts.tenant_aware {
        "(p.tenant_id IS NULL OR p.tenant_id = $4)"
    } else {
        "p.tenant_id IS NULL"
    };
    format!(
        " AND NOT EXISTS (SELECT 1 FROM {pauses} p WHERE p.route = $1 AND p.resumed_at IS NULL AND {tenant})"
    )
}

/// How many candidate rows locked by other relays a strict claim steps over before it stops
/// short (consume storage holds a pass's locks to its end).
const STRICT_LOCKED_SLACK: u32 = 5_000;

/// The claim. Parameters: `$1` route, `$2` limit, `$3` now, `$4` tenant (when tenant-aware).
///
/// On the claim index `(outbox_route, status, available_at, created_at)` a plain
/// `ORDER BY created_at LIMIT n` over `available_at IS NULL OR available_at <= now` sorts every
/// pending row of the route. Instead the claim reads two ranges of the index, each locking with
/// `FOR UPDATE SKIP LOCKED` in its own CTE (PostgreSQL refuses `FOR UPDATE` under `UNION`), so
/// rows other relays hold are stepped over and a contended claim still fills up:
/// - the ripe retries first (`available_at <= now`: few; scheduled ones are outside the
///   range), at most `n`;
/// - then the rows never retried (`available_at IS NULL`), at most `n` minus the ripe rows
///   taken, in index order (`available_at, created_at`: `LIMIT` stops after about that many
///   entries). Not by `id` too: the index has no `id`, and rows staged in one transaction share
///   one `created_at`, so ordering by `id` would read and sort the whole tie group on every
///   claim. Ties among them go in index order, which the specification allows (without HLC it
///   orders by `created_at` and leaves ties arbitrary; with HLC the index carries `id`).
///
/// So the claim locks exactly the rows it returns (a consume pass holds its locks to its end).
/// Ripe retries, being due, go ahead of newer rows never tried; strict key order still holds
/// (a row whose key has an earlier row pending outside the claim is held back).
///
/// Best-effort order (the default, with or without HLC) needs no more than those two ranges:
/// `best_effort_claim`. Strict order adds the hold-back below.
pub fn claim_sql(table: &QualifiedName, opts: &PgStoreOptions) -> String {
    if opts.key_order != KeyOrder::Strict {
        return best_effort_claim(table, opts);
    }
    let tenant = if opts.tenant_aware {
        " AND c.tenant_id = $4"
    } else {
        ""
    };
    // Strict order delivers a key's rows by (created_at, id) (with HLC, by hlc first): the claim
    // takes them in that order too, so a key's first row is never beyond the limit behind its
    // later ones.
    let (order, index_order, hlc_col) = if opts.hlc_ordering {
        (
            "c.hlc, c.created_at, c.id",
            "c.available_at, c.hlc, c.created_at, c.id",
            ", c.hlc",
        )
    } else {
        (
            "c.created_at, c.id",
            "c.available_at, c.created_at, c.id",
            "",
        )
    };
    // "Earlier" in claim order: with HLC, `hlc NULLS LAST, created_at, id`.
    let earlier = |e: &str, c: &str| {
        if opts.hlc_ordering {
            format!(
                "(COALESCE({e}.hlc, 9223372036854775807), {e}.created_at, {e}.id) < (COALESCE({c}.hlc, 9223372036854775807), {c}.created_at, {c}.id)"
            )
        } else {
            format!("({e}.created_at, {e}.id) < ({c}.created_at, {c}.id)")
        }
    };
    // A key is (tenant, ordering key); an empty or NULL ordering key is no key (the event's
    // own id), so such rows never wait for each other.
    // At the scan: skip a row while an earlier row of its key is processing, failed, or pending
    // but not yet due. Those rows are found first, once per claim (the claim index's `status`
    // ranges: few rows), keeping each key's first; the scan then steps over a blocked key's rows
    // with a hashed anti-join, not a probe per row, so a stuck key's backlog costs the rows
    // scanned, not a lookup each. (Earlier pending rows that are due are claimed first, in this
    // claim or, if another relay holds them, checked after locking.)
    const NO_TENANT: &str = "'00000000-0000-0000-0000-000000000000'::uuid";
    let hlc_first = if opts.hlc_ordering {
        ", COALESCE(b.hlc, 9223372036854775807) AS hlc"
    } else {
        ""
    };
    let btenant = if opts.tenant_aware {
        " AND b.tenant_id = $4"
    } else {
        ""
    };
    let border = if opts.hlc_ordering {
        "b.hlc NULLS LAST, b.created_at, b.id"
    } else {
        "b.created_at, b.id"
    };
    let blockers = format!(
        "blockers AS MATERIALIZED (
    SELECT DISTINCT ON (COALESCE(b.tenant_id, {NO_TENANT}), b.ordering_key)
           COALESCE(b.tenant_id, {NO_TENANT}) AS tenant, b.ordering_key AS key, b.created_at, b.id{hlc_first}
      FROM {table} b
     WHERE b.outbox_route = $1{btenant} AND {}
     ORDER BY COALESCE(b.tenant_id, {NO_TENANT}), b.ordering_key, {border})",
        blocking_rows("b")
    );
    let earlier_blocker = if opts.hlc_ordering {
        "(e.hlc, e.created_at, e.id) < (COALESCE(c.hlc, 9223372036854775807), c.created_at, c.id)"
    } else {
        "(e.created_at, e.id) < (c.created_at, c.id)"
    };
    let held_back = format!(
        " AND NOT EXISTS (SELECT 1 FROM blockers e
                WHERE e.key = c.ordering_key AND e.tenant = COALESCE(c.tenant_id, {NO_TENANT})
                  AND {earlier_blocker})"
    );
    // ... and after locking: no earlier row of the key may be left pending outside this claim
    // (locked by another relay, or beyond the limit). A row is left out only where a range
    // skipped one. When no ripe retry is due at all (locked or not: a plain read sees through
    // locks) and the rows never retried were taken without a gap (each one's place among the
    // candidates, `rn`, runs 1..n), none was, and the check per row is not made (a one-time
    // condition, tried first); otherwise it is.
    let dtenant = tenant.replace("c.", "d.");
    let in_order = format!(
        "(NOT EXISTS (SELECT 1 FROM {table} d WHERE d.outbox_route = $1 AND d.status = 'pending' AND {}{dtenant})
              AND (SELECT count(*) = coalesce(max(rn), 0) FROM fresh))",
        due("d")
    );
    let kept = format!(
        "NULLIF(r.ordering_key, '') IS NULL OR {in_order} OR NOT EXISTS (
                SELECT 1 FROM {table} e
                 WHERE e.outbox_route = $1 AND e.ordering_key = r.ordering_key
                   AND e.tenant_id IS NOT DISTINCT FROM r.tenant_id
                   AND e.status <> 'published' AND {}
                   AND e.status IN ('pending', 'processing', 'failed')
                   AND e.id NOT IN (SELECT id FROM ranked))",
        earlier("e", "r")
    );
    // Consume returns the claimed rows' columns straight from the ranges (no visit by id after);
    // retain needs only what the check reads, then updates the rows it keeps.
    let (ripe_cols, fresh_cols) = match opts.storage {
        Storage::Consume => (columns(opts, "c."), columns(opts, "t.")),
        Storage::Retain => (
            format!("c.id, c.created_at, c.ordering_key, c.tenant_id{hlc_col}"),
            format!(
                "t.id, t.created_at, t.ordering_key, t.tenant_id{}",
                hlc_col.replace("c.", "t.")
            ),
        ),
    };
    // a ripe row has no place among the fresh candidates
    let (ripe_cols, fresh_cols) = (
        format!("{ripe_cols}, NULL::bigint AS rn"),
        format!("{fresh_cols}, cand.rn"),
    );
    // The rows behind the kept ones step over a stuck key's rows in claim order, judged from
    // the index alone (the strict claim index carries the key: an index-only scan, no heap
    // fetch per stepped-over row); only the rows kept are locked, fetched by id: the candidates
    // are a subquery, so the lock needs no row position from them (a joined table would need its
    // `ctid`, which an index-only scan cannot give). The subquery's own limit makes the planner
    // choose the ordered scan that stops early rather than a sort of the whole range; it is `$2`
    // plus the rows other relays may hold (skipped, so a contended claim still fills up). The
    // ripe and fresh rows add up to at most `$2`: their union needs no limit but the one that
    // tells the planner so.
    let outer = index_order.replace("c.", "cand.");
    let paused = not_paused(opts);
    let due = due("c");
    let ctes = format!(
        "WITH {blockers},
ripe AS (
    SELECT {ripe_cols} FROM {table} c
     WHERE c.outbox_route = $1 AND c.status = 'pending' AND {due}{tenant}{held_back}{paused}
     ORDER BY {order} LIMIT $2 FOR UPDATE SKIP LOCKED),
fresh AS (
    SELECT {fresh_cols} FROM (
        SELECT c.id, c.available_at, c.created_at{hlc_col}, row_number() OVER (ORDER BY {index_order}) AS rn
          FROM {table} c
         WHERE c.outbox_route = $1 AND c.status = 'pending' AND c.available_at IS NULL{tenant}{held_back}{paused}
         ORDER BY {index_order} LIMIT $2 + {STRICT_LOCKED_SLACK}) cand
      JOIN {table} t ON t.id = cand.id AND t.status = 'pending' AND t.available_at IS NULL
     ORDER BY {outer} LIMIT $2 - (SELECT count(*) FROM ripe) FOR UPDATE OF t SKIP LOCKED),
ranked AS (SELECT * FROM ripe UNION ALL SELECT * FROM fresh LIMIT $2)"
    );
    match opts.storage {
        Storage::Retain => format!(
            "{ctes},
picked AS (SELECT r.id FROM ranked r WHERE {kept})
UPDATE {table} t SET status = 'processing', processing_at = $3 WHERE t.id = ANY (ARRAY(SELECT id FROM picked))
RETURNING {}, (SELECT count(*) FROM ranked) AS candidates",
            columns(opts, "t.")
        ),
        Storage::Consume => format!(
            "{ctes}
SELECT r.*, (SELECT count(*) FROM ranked) AS candidates FROM ranked r WHERE {kept}"
        ),
    }
}

/// The claim of best-effort order: the ripe retries, then the rows never retried, each range
/// selecting the rows' columns itself in index order (no second visit by id); in retain one
/// `UPDATE` of those ids returns them (the `LIMIT $2` on their union, redundant as it is, gives
/// the planner the row count, so it joins by the primary key instead of scanning the table).
/// Claimed in full: no `candidates` column.
fn best_effort_claim(table: &QualifiedName, opts: &PgStoreOptions) -> String {
    let tenant = if opts.tenant_aware {
        " AND c.tenant_id = $4"
    } else {
        ""
    };
    let (ripe_order, fresh_order) = if opts.hlc_ordering {
        (
            "c.hlc, c.created_at, c.id",
            "c.available_at, c.hlc, c.created_at, c.id",
        )
    } else {
        ("c.created_at, c.id", "c.available_at, c.created_at")
    };
    let paused = not_paused(opts);
    let due = due("c");
    let ranges = |cols: &str| {
        format!(
            "WITH ripe AS (
    SELECT {cols} FROM {table} c
     WHERE c.outbox_route = $1 AND c.status = 'pending' AND {due}{tenant}{paused}
     ORDER BY {ripe_order} LIMIT $2 FOR UPDATE SKIP LOCKED),
fresh AS (
    SELECT {cols} FROM {table} c
     WHERE c.outbox_route = $1 AND c.status = 'pending' AND c.available_at IS NULL{tenant}{paused}
     ORDER BY {fresh_order} LIMIT $2 - (SELECT count(*) FROM ripe) FOR UPDATE SKIP LOCKED)"
        )
    };
    // Retain updates the claimed rows by `id = ANY (ARRAY(…))`, a probe of the primary key
    // whatever the ranges are estimated at. A join would be estimated from `LIMIT $2`, which a
    // generic plan (named statements) takes for a tenth of the ranges: it hash-joined the whole
    // table (6 ms against 1.5 ms on 20,000 rows), so PostgreSQL planned every execution anew.
    match opts.storage {
        Storage::Consume => format!(
            "{}\nSELECT * FROM ripe UNION ALL SELECT * FROM fresh",
            ranges(&columns(opts, "c."))
        ),
        Storage::Retain => format!(
            "{}
UPDATE {table} t SET status = 'processing', processing_at = $3
 WHERE t.id = ANY (ARRAY(SELECT id FROM ripe UNION ALL SELECT id FROM fresh LIMIT $2))
RETURNING {}",
            ranges("c.id"),
            columns(opts, "t.")
        ),
    }
}

impl PgSql {
    /// The same statements, with the claim sent as a call of its function
    /// ([`claim_function`]) and, under retain, the mark as a call of its own
    /// ([`mark_function`]), each when it is among the `functions` the database has. `self` is
    /// as [`PgSql::new`] made it for `table`: its statements are the functions' bodies.
    pub fn calling(
        mut self,
        table: &QualifiedName,
        opts: &PgStoreOptions,
        functions: &HashSet<String>,
    ) -> Self {
        if !calls_functions(opts) {
            return self;
        }
        let has = |f: &Option<PassFunction>| {
            let Some(f) = f else {
                return false;
            };
            let there = functions.contains(f.name.name.name());
            if !there {
                tracing::debug!(
                    "no {} {} (outboxctl migrate adds it): its statement is planned on every pass",
                    f.kind.as_str(),
                    f.name
                );
            }
            there
        };
        let claim = function_of(table, opts, &self.claim);
        if has(&claim) {
            self.claim = claim.expect("there").call.into();
            self.claim_by_function = true;
        }
        let mark = (opts.storage == Storage::Retain)
            .then(|| mark_function_of(table, &self.published))
            .flatten();
        if has(&mark) {
            self.published = mark.expect("there").call.into();
            self.published_by_function = true;
        }
        self
    }

    pub fn new(table: &QualifiedName, log: Option<&QualifiedName>, opts: &PgStoreOptions) -> Self {
        let tenant = if opts.tenant_aware {
            " AND tenant_id = $3"
        } else {
            ""
        };
        let reclaim = format!(
            "UPDATE {table} SET status = 'pending', processing_at = NULL
 WHERE outbox_route = $1 AND status = 'processing' AND processing_at IS NOT NULL AND processing_at < $2{tenant}"
        );
        let claim = claim_sql(table, opts);
        let claim_counts = opts.key_order == KeyOrder::Strict;
        let s = |text: String| -> Arc<str> { text.into() };
        match opts.storage {
            Storage::Retain => Self {
                claim: s(claim),
                claim_counts,
                claim_by_function: false,
                published_by_function: false,
                reclaim: s(reclaim),
                published: s(format!(
                    "UPDATE {table} SET status = 'published', published_at = $2, last_error = NULL WHERE id = ANY($1) AND status = 'processing'"
                )),
                published_step: "marking published",
                published_takes_time: true,
                retry: s(format!(
                    "UPDATE {table} SET status = 'pending', processing_at = NULL, attempts = $2, available_at = $3, last_error = $4 WHERE id = ANY($1) AND status = 'processing' AND processing_at = $5"
                )),
                failed: s(format!(
                    "UPDATE {table} SET status = 'failed', last_error = $2 WHERE id = ANY($1) AND status = 'processing' AND processing_at = $3"
                )),
                release: Some(s(format!(
                    "UPDATE {table} SET status = 'pending', processing_at = NULL WHERE id = ANY($1) AND status = 'processing' AND processing_at = $2"
                ))),
            },
            Storage::Consume => Self {
                claim: s(claim),
                claim_counts,
                claim_by_function: false,
                published_by_function: false,
                reclaim: s(reclaim),
                published: s(match log {
                    None => format!("DELETE FROM {table} WHERE id = ANY($1) AND status = 'pending'"),
                    Some(log) => format!(
                        "WITH consumed AS (DELETE FROM {table} WHERE id = ANY($1) AND status = 'pending'
                           RETURNING id, outbox_route, event_id, tenant_id)
INSERT INTO {log} (id, outbox_route, event_id, tenant_id, published_at)
SELECT id, outbox_route, event_id, tenant_id, $2 FROM consumed"
                    ),
                }),
                published_step: if log.is_some() {
                    "deleting the delivered rows into the delivery log"
                } else {
                    "deleting the delivered rows"
                },
                published_takes_time: log.is_some(),
                retry: s(format!(
                    "UPDATE {table} SET attempts = $2, available_at = $3, last_error = $4 WHERE id = ANY($1) AND status = 'pending'"
                )),
                failed: s(format!(
                    "UPDATE {table} SET status = 'failed', last_error = $2 WHERE id = ANY($1) AND status = 'pending'"
                )),
                release: None,
            },
        }
    }
}
