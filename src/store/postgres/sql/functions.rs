//! The functions of the pass: the claim and, under retain, the mark, each as a PL/pgSQL function
//! of its own that `outboxctl migrate` adds and the relay calls instead of sending the statement
//! ([`PassFunction`]); how the catalog finds and trusts one. Text only, like [`super`].

use super::{PgSql, PgStoreOptions, claim_columns, claim_sql};
use crate::model::{KeyOrder, Storage};
use crate::target::QualifiedName;

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
/// How a claim function's body opens, as every version of outboxctl has written it.
const CLAIM_BODY_OPENING: &str = "\n#variable_conflict use_column\nBEGIN\nRETURN QUERY ";
/// How a mark function's body opens, as every version of outboxctl has written it.
const MARK_BODY_OPENING: &str = "\nDECLARE\n  marked bigint;\nBEGIN\n";

/// Which function of the pass outboxctl made for `table`, in any version or settings, a
/// function of `table`'s schema is, from its name and body: `T_claim_<hash>` or `T_mark_<hash>`
/// (eight lowercase hex digits) whose body opens as outboxctl writes that kind's. `None` for any
/// other function, whatever its name: `migrate --prune-functions` drops only these.
pub fn pass_function_kind(table: &QualifiedName, name: &str, body: &str) -> Option<FunctionKind> {
    let rest = name.strip_prefix(table.name.name())?;
    let hashed = |infix: &str| {
        rest.strip_prefix(infix).is_some_and(|hash| {
            hash.len() == 8 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
    };
    [
        (
            FunctionKind::Claim,
            CLAIM_FUNCTION_INFIX,
            CLAIM_BODY_OPENING,
        ),
        (FunctionKind::Mark, MARK_FUNCTION_INFIX, MARK_BODY_OPENING),
    ]
    .into_iter()
    .find(|(_, infix, opening)| hashed(infix) && body.starts_with(opening))
    .map(|(kind, ..)| kind)
}

/// The table whose statements go through functions: an outbox of one table, in either key order
/// (a table per tenant gets none: one function per tenant's table would be one per tenant).
/// `None` otherwise.
pub(in crate::store::postgres) fn claim_function_table(
    opts: &PgStoreOptions,
) -> Option<QualifiedName> {
    if opts.relation.is_per_tenant() {
        return None;
    }
    opts.relation.resolve(None).ok()
}

/// Whether a relay with these options calls the functions of the pass at all. Not for a table
/// per tenant (`claim_function_table`), nor with `prepared_statements`: a named statement is
/// planned once per connection already, and sent as it is it runs faster than a call of the
/// same statement through PL/pgSQL (whose `RETURN QUERY` copies the claimed rows once more):
/// 1.07–1.20× under consume and retain at 20,000 rows, about even in the other modes
/// (docs/benchmarks.md).
pub fn calls_functions(opts: &PgStoreOptions) -> bool {
    !opts.prepared_statements && claim_function_table(opts).is_some()
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

/// Why a relay that would call the functions of the pass has no claim function: its table's
/// name leaves no room for the function's (`T_claim_<8 hex digits>` in 63 bytes), so the claim
/// goes as SQL, parsed and planned on every pass. `None` when it has one, or calls none anyway
/// (`prepared_statements`, a table per tenant). Said by `migrate` and `doctor`: both were
/// silent, and `migrate --check` found nothing missing.
pub fn no_room_for_functions(opts: &PgStoreOptions) -> Option<String> {
    let table = claim_function_table(opts).filter(|_| !opts.prepared_statements)?;
    if claim_function(opts).is_some() {
        return None;
    }
    let room = 63 - CLAIM_FUNCTION_INFIX.len() - 8;
    Some(format!(
        "the name of {} ({} bytes) leaves no room for its claim function's (the name, {CLAIM_FUNCTION_INFIX} and 8 hex digits in 63 bytes): the relay sends the claim as SQL, parsed and planned on every pass; a table name of at most {room} bytes has its functions",
        table.plain(),
        table.name.name().len()
    ))
}

/// The functions a relay with these options calls ([`claim_function`], [`mark_function`]).
pub fn functions(opts: &PgStoreOptions) -> Vec<PassFunction> {
    claim_function(opts)
        .into_iter()
        .chain(mark_function(opts))
        .collect()
}

/// The function whose body is `claim`, the claim of `table` under `opts`.
pub(super) fn function_of(
    table: &QualifiedName,
    opts: &PgStoreOptions,
    claim: &str,
) -> Option<PassFunction> {
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
    let body = format!("{CLAIM_BODY_OPENING}{claim};\nEND\n");
    let returns = format!("TABLE ({})", returns.join(", "));
    plpgsql(table, FunctionKind::Claim, &args, &returns, body)
}

/// The function whose body is `published`, retain's mark of `table`.
pub(super) fn mark_function_of(table: &QualifiedName, published: &str) -> Option<PassFunction> {
    let body = format!(
        "{MARK_BODY_OPENING}{published};\nGET DIAGNOSTICS marked = ROW_COUNT;\nRETURN marked;\nEND\n"
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
    // the claim returns rows, the mark its count
    let call = match kind {
        FunctionKind::Claim => format!("SELECT * FROM {name}({})", params.join(", ")),
        FunctionKind::Mark => format!("SELECT {name}({})", params.join(", ")),
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
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
    fn a_pass_function_of_any_settings_is_known_by_its_name_and_body_and_no_other() {
        let table = QualifiedName::parse("t", "app.outbox").unwrap();
        let retain = PgStoreOptions {
            storage: Storage::Retain,
            ..strict("app.outbox")
        };
        let hlc = PgStoreOptions {
            hlc_ordering: true,
            key_order: KeyOrder::BestEffort,
            ..strict("app.outbox")
        };
        for opts in [strict("app.outbox"), retain, hlc] {
            for f in functions(&opts) {
                let name = f.name.name.name();
                assert_eq!(
                    pass_function_kind(&table, name, &f.body),
                    Some(f.kind),
                    "{name}"
                );
            }
        }
        let claim = claim_function(&strict("app.outbox")).unwrap();
        let name = claim.name.name.name();
        let body = &claim.body;
        let other = QualifiedName::parse("t", "app.outbox_2").unwrap();
        assert_eq!(
            pass_function_kind(&other, name, body),
            None,
            "another table's"
        );
        for name in [
            "outbox_claim_0123abc",
            "outbox_claim_0123abcde",
            "outbox_claim_0123ABCD",
            "outbox_claim_0123abcg",
            "outbox_claims_0123abcd",
            "outbox_2_claim_0123abcd",
        ] {
            assert_eq!(pass_function_kind(&table, name, body), None, "{name}");
        }
        let yours = "\nBEGIN\nRETURN 1;\nEND\n";
        assert_eq!(
            pass_function_kind(&table, name, yours),
            None,
            "a body of yours"
        );
        assert_eq!(
            pass_function_kind(&table, "outbox_mark_0123abcd", body),
            None,
            "a claim's body under a mark's name"
        );
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
