//! The relay's statements for one relation, exactly as `semantics.md` gives them, for retain and
//! consume storage, with the claim written to read about `limit` index entries whatever the
//! backlog (see [`claim_sql`]). Text only: [`super::pass`] sends them.

use std::collections::HashSet;
use std::sync::Arc;

use crate::model::{KeyOrder, Storage};
use crate::target::QualifiedName;

use super::PgStoreOptions;

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

/// A statement of the pass as a PL/pgSQL function of its own, which `outboxctl migrate` adds
/// for an outbox of one table: the claim ([`claim_function`]) and, under retain, the mark
/// ([`mark_function`]). The server keeps a function's plans for the life of its process, whichever client
/// calls it, so the claim is parsed and planned once per server connection even behind a
/// transaction pooler, where its SQL sent unnamed is parsed and planned on every pass (about
/// 0.9 ms of the pass's 2 ms for a strict claim on 20,000 rows; about 0.3 ms of a best-effort
/// claim's, a quarter of a consume pass; less for each of retain's marks, four a pass). Its body
/// is the statement ([`claim_sql`], `PgSql::published`) as it stands; its name ends in a hash of
/// its whole text, so a relay calls only a function whose body is the statement it would send
/// itself, and a relay of another version or other settings sends its own SQL instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassFunction {
    /// Which statement it holds.
    pub kind: FunctionKind,
    pub name: QualifiedName,
    /// `CREATE OR REPLACE FUNCTION …`.
    pub ddl: String,
    /// The call the relay sends instead of the statement, with the statement's parameters.
    pub call: String,
    /// Its arguments as `pg_get_function_identity_arguments` prints them.
    pub arguments: String,
    /// Its body as the catalog keeps it (`pg_proc.prosrc`).
    pub body: String,
    /// The table it claims from or marks.
    pub table: QualifiedName,
}

/// Which statement of the pass a [`PassFunction`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Claim,
    Mark,
}

impl FunctionKind {
    /// What it is called in messages, and doctor's check.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Claim => "claim function",
            Self::Mark => "mark function",
        }
    }

    /// The statement it holds.
    pub fn statement(self) -> &'static str {
        match self {
            Self::Claim => "claim",
            Self::Mark => "mark",
        }
    }
}

impl PassFunction {
    /// The condition on `pg_proc p` that finds this function (its schema, name and arguments)
    /// and, second, the one that trusts it: its body as written here in PL/pgSQL, the caller's
    /// rights, no settings of its own, and an owner that is a superuser, the table's owner or a member of
    /// that role. A name alone is not trusted: it is predictable, and a role that may create
    /// functions in the schema could make one first. `$first` onwards are
    /// [`PassFunction::catalog_values`].
    pub fn catalog_conditions(first: usize) -> (String, String) {
        let [schema, name, arguments, body, table] =
            std::array::from_fn(|i| format!("${}", first + i));
        (
            format!(
                "p.pronamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = {schema}) \
                 AND p.proname = {name} AND pg_get_function_identity_arguments(p.oid) = {arguments}"
            ),
            format!(
                "p.prosrc = {body} AND NOT p.prosecdef AND p.proconfig IS NULL \
                 AND p.prolang = (SELECT l.oid FROM pg_language l WHERE l.lanname = 'plpgsql') \
                 AND {}",
                Self::trusted_owner(
                    "p.proowner",
                    &format!("c.relnamespace = p.pronamespace AND c.relname = {table}")
                )
            ),
        )
    }

    /// Whether the role `owner` (an oid expression) may own a claim function the relay trusts:
    /// a superuser, or a member of the owner of the table `pg_class c` that `table` finds. The
    /// one rule [`PassFunction::catalog_conditions`] and `migrate` (for the function its role
    /// would make) both apply.
    pub fn trusted_owner(owner: &str, table: &str) -> String {
        format!(
            "((SELECT r.rolsuper FROM pg_roles r WHERE r.oid = {owner}) \
              OR (SELECT pg_has_role({owner}, c.relowner, 'MEMBER') FROM pg_class c WHERE {table}))"
        )
    }

    /// The values [`PassFunction::catalog_conditions`] bind, in order.
    pub fn catalog_values(&self) -> [String; 5] {
        [
            self.name.schema.name().to_owned(),
            self.name.name.name().to_owned(),
            self.arguments.clone(),
            self.body.clone(),
            self.table.name.name().to_owned(),
        ]
    }
}

/// What a claim function's name adds to its table's name, before the hash.
pub const CLAIM_FUNCTION_INFIX: &str = "_claim_";
/// What a mark function's name adds to its table's name, before the hash.
pub const MARK_FUNCTION_INFIX: &str = "_mark_";

/// The table whose statements go through functions: an outbox of one table, in either key order
/// (a table per tenant gets none: one function per tenant's table would be one per tenant).
/// `None` otherwise.
pub(super) fn claim_function_table(opts: &PgStoreOptions) -> Option<QualifiedName> {
    if opts.relation.is_per_tenant() {
        return None;
    }
    opts.relation.resolve(None).ok()
}

/// The claim function a relay with these options calls ([`PassFunction`]); `None` when its
/// claim goes as SQL (a table per tenant has no function: `claim_function_table`),
/// or when the table's name leaves no room for the function's.
pub fn claim_function(opts: &PgStoreOptions) -> Option<PassFunction> {
    let table = claim_function_table(opts)?;
    function_of(&table, opts, &claim_sql(&table, opts))
}

/// Retain's mark (the published step: `UPDATE … SET status = 'published' … WHERE id = ANY($1)`)
/// as a function of its own ([`PassFunction`]), called `SELECT T_mark_<hash>($1, $2)`: the same
/// statement, its count returned. `None` under consume (its pass deletes the delivered rows in
/// one statement with its `COMMIT`), for a table per tenant, or when the table's name leaves no
/// room for the function's.
pub fn mark_function(opts: &PgStoreOptions) -> Option<PassFunction> {
    if opts.storage != Storage::Retain {
        return None;
    }
    let table = claim_function_table(opts)?;
    mark_function_of(&table, &PgSql::new(&table, None, opts).published)
}

/// The functions a relay with these options calls ([`claim_function`], [`mark_function`]).
pub fn functions(opts: &PgStoreOptions) -> Vec<PassFunction> {
    claim_function(opts)
        .into_iter()
        .chain(mark_function(opts))
        .collect()
}

/// The function whose body is `claim`, the claim of `table` under `opts`.
fn function_of(table: &QualifiedName, opts: &PgStoreOptions, claim: &str) -> Option<PassFunction> {
    let mut args = vec!["text", "bigint", "timestamp with time zone"];
    if opts.tenant_aware {
        args.push("uuid");
    }
    // the claim's columns and, for the strict claim, its own
    let mut returns: Vec<String> = claim_columns(opts)
        .iter()
        .map(|(c, t)| format!("{c} {t}"))
        .collect();
    if opts.key_order == KeyOrder::Strict {
        if opts.storage == Storage::Consume {
            returns.push("rn bigint".into());
        }
        returns.push("candidates bigint".into());
    }
    // `use_column`: the claim's unqualified names (`rn`) are its columns, not the outputs
    let body = format!("\n#variable_conflict use_column\nBEGIN\nRETURN QUERY {claim};\nEND\n");
    let returns = format!("TABLE ({})", returns.join(", "));
    plpgsql(table, FunctionKind::Claim, &args, &returns, body)
}

/// The function whose body is `published`, retain's mark of `table`.
fn mark_function_of(table: &QualifiedName, published: &str) -> Option<PassFunction> {
    let body = format!(
        "\nDECLARE\n  marked bigint;\nBEGIN\n{published};\nGET DIAGNOSTICS marked = ROW_COUNT;\nRETURN marked;\nEND\n"
    );
    let args = ["uuid[]", "timestamp with time zone"];
    plpgsql(table, FunctionKind::Mark, &args, "bigint", body)
}

/// A PL/pgSQL function of `table`'s with `body`, named `T<infix><hash of its whole text>`
/// (`_claim_` or `_mark_`): its `CREATE`, and the call that stands for the statement it holds
/// (`$1`… its arguments).
fn plpgsql(
    table: &QualifiedName,
    kind: FunctionKind,
    args: &[&str],
    returns: &str,
    body: String,
) -> Option<PassFunction> {
    // a dollar quote that no name in the body can close
    let mut tag = "$outboxctl$".to_owned();
    while body.contains(&tag) {
        tag.insert(tag.len() - 1, '_');
    }
    let arguments = args.join(", ");
    let text = format!("({arguments}) RETURNS {returns} LANGUAGE plpgsql AS {tag}{body}{tag}");
    let infix = match kind {
        FunctionKind::Claim => CLAIM_FUNCTION_INFIX,
        FunctionKind::Mark => MARK_FUNCTION_INFIX,
    };
    let suffix = format!("{infix}{}", crate::target::short_hash(&text));
    let name = table.sibling(kind.as_str(), &suffix).ok()?;
    let params: Vec<String> = (1..=args.len()).map(|i| format!("${i}")).collect();
    let call = if returns.starts_with("TABLE") {
        format!("SELECT * FROM {name}({})", params.join(", "))
    } else {
        format!("SELECT {name}({})", params.join(", "))
    };
    Some(PassFunction {
        kind,
        ddl: format!("CREATE OR REPLACE FUNCTION {name}{text}"),
        call,
        name,
        arguments,
        body,
        table: table.clone(),
    })
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
        if claim_function_table(opts).is_none() {
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
                    "UPDATE {table} SET status = 'pending', processing_at = NULL, attempts = $2, available_at = $3, last_error = $4 WHERE id = ANY($1) AND status = 'processing'"
                )),
                failed: s(format!(
                    "UPDATE {table} SET status = 'failed', last_error = $2 WHERE id = ANY($1) AND status = 'processing'"
                )),
                release: Some(s(format!(
                    "UPDATE {table} SET status = 'pending', processing_at = NULL WHERE id = ANY($1) AND status = 'processing'"
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::target::RelationSpec;

    fn strict(relation: &str) -> PgStoreOptions {
        PgStoreOptions {
            relation: RelationSpec::parse("relation", relation).unwrap(),
            delivery_log: None,
            storage: Storage::Consume,
            hlc_ordering: false,
            propagate_trace: false,
            tenant_aware: false,
            key_order: KeyOrder::Strict,
            pass_statement_timeout: Duration::from_secs(1),
            pass_deadline: Duration::from_secs(5),
            prepared_statements: false,
            pauses: None,
        }
    }

    #[test]
    fn a_claim_functions_body_is_quoted_with_a_tag_no_name_in_it_can_close() {
        let plain = claim_function(&strict("app.outbox")).unwrap();
        assert!(
            plain
                .ddl
                .ends_with(&format!("$outboxctl${}$outboxctl$", plain.body))
        );
        let f = claim_function(&strict(r#"app."a$outboxctl$b""#)).unwrap();
        assert!(f.body.contains("$outboxctl$"), "{}", f.body);
        let tag = "$outboxctl_$";
        assert!(
            f.ddl.ends_with(&format!("{tag}{}{tag}", f.body)),
            "{}",
            f.ddl
        );
        assert_eq!(f.ddl.matches(tag).count(), 2, "{}", f.ddl);
    }

    #[test]
    fn retain_alone_has_a_mark_function_whose_body_is_its_mark() {
        assert!(mark_function(&strict("app.outbox")).is_none(), "consume");
        let retain = PgStoreOptions {
            storage: Storage::Retain,
            key_order: KeyOrder::BestEffort,
            ..strict("app.outbox")
        };
        let f = mark_function(&retain).unwrap();
        let table = retain.relation.resolve(None).unwrap();
        let published = PgSql::new(&table, None, &retain).published;
        assert!(f.body.contains(&format!("\n{published};\n")), "{}", f.body);
        assert_eq!(f.kind, FunctionKind::Mark);
        assert!(f.name.name.name().starts_with("outbox_mark_"), "{}", f.name);
        assert_eq!(f.call, format!("SELECT {}($1, $2)", f.name));
        // one per table, whatever the key order or HLC: the mark is the same statement
        let strict_hlc = PgStoreOptions {
            key_order: KeyOrder::Strict,
            hlc_ordering: true,
            ..retain.clone()
        };
        assert_eq!(mark_function(&strict_hlc), Some(f.clone()));
        assert_eq!(functions(&retain).len(), 2);
        // a relay whose database has it marks through it, one whose database has not by SQL
        let have: HashSet<String> = [f.name.name.name().to_owned()].into();
        let sql = PgSql::new(&table, None, &retain).calling(&table, &retain, &have);
        assert!(sql.published_by_function && !sql.claim_by_function);
        assert_eq!(&*sql.published, f.call);
        let sql = PgSql::new(&table, None, &retain).calling(&table, &retain, &HashSet::new());
        assert!(!sql.published_by_function);
        assert_eq!(sql.published, published);
    }
}
