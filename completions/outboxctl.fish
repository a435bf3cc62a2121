# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_outboxctl_global_optspecs
    string join \n config= database-url= format= y/yes v/verbose q/quiet no-color log-format= connect-timeout= relation= collection= storage= delivery-log= hlc-checkpoint= hlc-ordering propagate-trace key-order= h/help V/version
end

function __fish_outboxctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_outboxctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_outboxctl_using_subcommand
    set -l cmd (__fish_outboxctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c outboxctl -n "__fish_outboxctl_needs_command" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_needs_command" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "schema" -d 'Print the schema (DDL or mongosh script) for the configured outbox'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "migrate" -d 'Bring the database to the configured schema (adds; drops only with --prune-functions)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "partitions" -d 'Manage the delivery log\'s daily partitions (PostgreSQL)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "inspect" -d 'What is pending, processing, failed; rows; where an event is'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "requeue" -d 'Return failed rows to pending (by --id, or by filter with --all)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "discard" -d 'Delete failed rows an operator gave up on (by --id, or by filter with --all)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "emit" -d 'Stage an event (or --count N of them)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "hlc" -d 'The HLC checkpoint'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "doctor" -d 'Check what the specification warns about: ok / warn / fail (exit 1 on a fail)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "storage" -d 'Retain → consume storage, step by step'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "relay" -d 'Relay events to their destinations, once or in a loop'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "route" -d 'Pause and resume a route on every relay; list routes and their pauses'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "replay" -d 'Publish delivered events again, selected and in order, to a destination (--to)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "top" -d 'A live view of the outbox and its relays (one snapshot in a pipe)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "init" -d 'Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "completions" -d 'Print the shell completion script'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "man" -d 'Print the man page (or write one per command with --out DIR)'
complete -c outboxctl -n "__fish_outboxctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -f -a "print" -d 'Print the schema, ready to paste into a migration file'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and not __fish_seen_subcommand_from print help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l backend -d 'Backend to print for (default: from the database URL, else postgres)' -r -f -a "postgres\t''
mongo\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l with -d 'Optional parts to include beyond the configuration\'s' -r -f -a "hlc\t''
traceparent\t''
checkpoint\t''
delivery-log\t''
replay\t''
wake\t''
registry\t'outboxctl\'s relay registry and route pauses (migrate adds them by outbox.registry)'
all\t'hlc, traceparent, checkpoint and delivery-log (outboxctl\'s own parts only when named)'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from print" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "print" -d 'Print the schema, ready to paste into a migration file'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l lock-timeout -d 'lock_timeout for each change to an existing table (default: half relay.pass_statement_timeout)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l retries -d 'Attempts after the first when a lock stays busy' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l lock-wait -d 'How long to wait for another migrate of the same outbox to finish' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l dry-run -d 'Print the plan and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l check -d 'Change nothing; exit 1 when the database differs from the configured schema'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l prune-functions -d 'Also drop the functions of the pass this configuration\'s relay does not call (asks first)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand migrate" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -f -a "list" -d 'Every partition with its bounds (from the catalog), size and flags'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -f -a "add-ahead" -d 'Attach a partition for each missing UTC day from today to today + N'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -f -a "drop-expired" -d 'Drop day partitions whose upper bound is at or before today - N (destructive)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -f -a "check" -d 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and not __fish_seen_subcommand_from list add-ahead drop-expired check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l days -d 'Days after today to cover (default: partitions.ahead_days, 7)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l lock-timeout -d 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l retries -d 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l dry-run -d 'Print which days would be added and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from add-ahead" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l keep-days -d 'Days to keep (default: partitions.keep_days, 30)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l lock-timeout -d 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l retries -d 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l dry-run -d 'Print what would be dropped and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from drop-expired" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l min-ahead -d 'Days from today that must be attached (today counts; default: partitions.ahead_days)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l lock-timeout -d 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l retries -d 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l fix -d 'Move rows out of the default partition into day partitions; attach empty days over gaps'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l dry-run -d 'With --fix: print what it would move and add, and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every partition with its bounds (from the catalog), size and flags'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from help" -f -a "add-ahead" -d 'Attach a partition for each missing UTC day from today to today + N'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from help" -f -a "drop-expired" -d 'Drop day partitions whose upper bound is at or before today - N (destructive)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from help" -f -a "check" -d 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand partitions; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "summary" -d 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "pending" -d 'Pending rows, oldest first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "failed" -d 'Failed (parked) rows, oldest first; with --group, grouped by their error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "blocked" -d 'Keys strict order holds back: each key\'s parked, in-flight or retrying head row and how many rows wait behind it, most first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "relays" -d 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "event" -d 'Where an event is: its outbox row, or its delivery-log records'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and not __fish_seen_subcommand_from summary pending failed blocked relays event help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from summary" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l type -d 'Only this event type' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l older-than -d 'Only rows created longer ago than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l error-contains -d 'Only rows whose last_error contains this text' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l limit -d 'At most this many rows' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l after -d 'Rows after this row id (keyset pagination: pass the last id of the previous page)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l type -d 'Only this event type' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l older-than -d 'Only rows created longer ago than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l error-contains -d 'Only rows whose last_error contains this text' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l limit -d 'At most this many rows' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l after -d 'Rows after this row id (keyset pagination: pass the last id of the previous page)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l group -d 'Group the rows by a fingerprint of their last error (numbers, ids, addresses, durations and quoted text masked), most rows first; its id serves `requeue`/`discard --group`'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l retrying -d 'With --group: also rows waiting for a retry, not only parked ones'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from failed" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l limit -d 'At most this many keys' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from blocked" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from relays" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l tenant -d 'Only this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from event" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "summary" -d 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Pending rows, oldest first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "failed" -d 'Failed (parked) rows, oldest first; with --group, grouped by their error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "blocked" -d 'Keys strict order holds back: each key\'s parked, in-flight or retrying head row and how many rows wait behind it, most first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "relays" -d 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "event" -d 'Where an event is: its outbox row, or its delivery-log records'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l id -d 'Row ids (repeatable, or comma-separated)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l group -d 'The failed rows of these failure groups (ids from `inspect failed --group`; repeatable or comma-separated), as they are now; the filters narrow them further' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l tenant -d 'Only this tenant' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l type -d 'Only this event type' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l older-than -d 'Only rows created longer ago than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l error-contains -d 'Only rows whose last_error contains this text' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l all -d 'Every failed row that matches the filters (required when selecting by filter)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l dry-run -d 'Show what would change and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand requeue" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l id -d 'Row ids (repeatable, or comma-separated)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l group -d 'The failed rows of these failure groups (ids from `inspect failed --group`; repeatable or comma-separated), as they are now; the filters narrow them further' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l route -d 'Only this route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l tenant -d 'Only this tenant' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l type -d 'Only this event type' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l older-than -d 'Only rows created longer ago than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l error-contains -d 'Only rows whose last_error contains this text' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l save -d 'Keep each row discarded, whole, as a JSON line appended to FILE (synced before it is deleted)' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l all -d 'Every failed row that matches the filters (required when selecting by filter)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l dry-run -d 'Show what would change and change nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand discard" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l route -d 'The outbox route' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l type -d 'The event type, e.g. order.placed' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l payload -d 'The payload: a JSON object, @FILE, or - for standard input' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l ordering-key -d 'The ordering key (default: none; the message is then keyed by its event id)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l tenant -d 'The tenant\'s UUID (required when the outbox is tenant-aware)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l correlation-id -d 'Stored in correlation_id, sent as the forze_correlation_id header' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l causation-id -d 'Stored in causation_id, sent as the forze_causation_id header' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l execution-id -d 'Stored in execution_id, sent as the forze_execution_id header' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l event-id -d 'The event id (default: a new time-ordered UUID); staging it again is deduplicated' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l traceparent -d 'W3C traceparent to store (needs propagate_trace)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l count -d 'Stage this many events (same payload, new ids), e.g. for load tests' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l node-key -d 'HLC checkpoint node key' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand emit" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'The checkpoint rows, the max, and its distance from the wall clock'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from help" -f -a "show" -d 'The checkpoint rows, the max, and its distance from the wall clock'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand hlc; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l max-pending-age -d 'Fail when the oldest pending row is older than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l max-xmin-age -d 'Warn when a transaction holding the xmin horizon is older than this; fail past 12 times it (PostgreSQL)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l max-xmin-xids -d 'Warn when a replication slot or walsender holds the xmin horizon back more transaction ids than this; fail past 12 times it (PostgreSQL)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -f -a "status" -d 'Where the table stands: columns, processing and published rows, the next step'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -f -a "to-consume" -d 'Walk the retain → consume steps (the next one, or --step N)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and not __fish_seen_subcommand_from status to-consume help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l step -d 'Run this step (default: the next one)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l wait -d 'Step 2: wait up to this long for processing and published rows to be gone (without it: report what blocks, exit 5)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l lock-timeout -d 'lock_timeout for step 3\'s table lock' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l retries -d 'Attempts after the first when the lock stays busy' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l check-timeout -d 'statement_timeout for step 3\'s re-check and drop while the table is locked' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l dry-run -d 'Change nothing: step 1 confirms nothing, step 3 prints its SQL'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l reclaim-disabled -d 'Every relay on this table runs with reclaim off (reclaim_stale_after: null); step 3 needs it'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from to-consume" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from help" -f -a "status" -d 'Where the table stands: columns, processing and published rows, the next step'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from help" -f -a "to-consume" -d 'Walk the retain → consume steps (the next one, or --step N)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand storage; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l route -d 'Relay only these routes (repeatable or comma-separated; default: every route in relay.routes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l to -d 'Destination for the given routes (default stdout): stdout, file:PATH, postgres-table:SCHEMA.TABLE, nats://, amqp://, redis://, kafka://, http(s)://' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l max-passes -d 'With --once: stop each route after this many passes' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l metrics-addr -d 'With --loop: serve /metrics (Prometheus), /healthz and /readyz on this address' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l health-max-failing -d 'With --metrics-addr: /healthz fails when a route\'s passes have failed for longer than this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l metrics-header-timeout -d 'With --metrics-addr: how long a client may take to send its request headers' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l metrics-max-connections -d 'With --metrics-addr: at most this many connections at once (an idle one makes room)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l once -d 'Drain every route until a claim comes back short, print a summary, exit'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l loop -d 'Run until SIGTERM/SIGINT, then drain and exit 0'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand relay" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -f -a "pause" -d 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -f -a "resume" -d 'Claim a paused route again'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -f -a "list" -d 'Routes configured or served, paused or active; with --history every pause and resume'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and not __fish_seen_subcommand_from pause resume list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l tenant -d 'Only this tenant\'s rows (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l reason -d 'Why (shown by route list, inspect, top and the relays\' logs)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from pause" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l tenant -d 'The pause of this tenant (tenant-aware outboxes)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from resume" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l history -d 'Every pause and resume ever made, oldest first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from help" -f -a "pause" -d 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Claim a paused route again'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from help" -f -a "list" -d 'Routes configured or served, paused or active; with --history every pause and resume'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand route; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l to -d 'Where to publish: any destination the relay takes (stdout, file:PATH, nats://, amqp://, redis://, kafka://, http(s)://); required unless --dry-run' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l from -d 'Where delivered events are read: the outbox\'s published rows (default), postgres-table:SCHEMA.TABLE or file:PATH' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l channel -d 'Subject, queue, stream or topic for every route [default: the route\'s name]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l route -d 'Routes to replay, in this order (repeatable or comma-separated) [default: the configured routes]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l since -d 'Delivered at or after (RFC 3339, or a duration ago such as 2h)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l until -d 'Delivered before (RFC 3339, or a duration ago such as 30m)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l key -d 'Only this broker key (the ordering key, or the event id of a row without one)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l tenant -d 'Only this tenant' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l type -d 'Only this event type' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l event-id -d 'Only these events (repeatable or comma-separated)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l hlc-from -d 'From this HLC on (the forze_hlc header\'s form, or packed)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l hlc-to -d 'Up to this HLC, inclusive' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l rate -d 'Events per second at most (publishes then go one at a time)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l limit -d 'Events at most' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l retries -d 'Tries again after a refusal that may pass (200 ms apart, doubling) before stopping' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l after -d 'Resume after this cursor (printed by an earlier replay\'s summary)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l dry-run -d 'Count what would be replayed (per route, first and last event); publish nothing'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand replay" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l interval -d 'Refresh every (a snapshot\'s rates: readings this far apart, at most 1s)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l relay -d 'A relay\'s metrics endpoint (its --metrics-addr), repeatable: http://HOST:PORT' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l filter -d 'Only routes whose name contains this' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l once -d 'Print one snapshot and exit (what a pipe or cron gets anyway)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand top" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l path -d 'Where to write the file [default: the --config file, else outboxctl.yaml]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l route -d 'A first route to relay (with --to, its destination)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l to -d 'The first route\'s destination (stdout, file:PATH, nats://…, amqp://…, redis://…, kafka://…, https://…)' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l force -d 'Overwrite an existing file'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand init" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l out -d 'Write one page per command (outboxctl.1, outboxctl-relay.1, …) into this folder' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l config -d 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]' -r -F
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l database-url -d 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l format -d 'Output format for data on stdout' -r -f -a "table\t'Human-readable tables and text'
json\t'One JSON document'
jsonl\t'One JSON object per line'"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l log-format -d 'Log lines on stderr as text or JSON (filter with RUST_LOG)' -r -f -a "text\t''
json\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l connect-timeout -d 'Give up connecting after this long' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l relation -d 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l collection -d 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l storage -d 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]' -r -f -a "retain\t''
consume\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l delivery-log -d 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l hlc-checkpoint -d 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]' -r
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l key-order -d 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]' -r -f -a "best-effort\t''
strict\t''"
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -s y -l yes -d 'Answer yes to confirmations (needed for destructive steps without a terminal)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -s v -l verbose -d 'More detail on stderr (repeat for more)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -s q -l quiet -d 'Print nothing on success but data'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l no-color -d 'Never colour output (also NO_COLOR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l hlc-ordering -d 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -l propagate-trace -d 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand man" -s V -l version -d 'Print version'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "schema" -d 'Print the schema (DDL or mongosh script) for the configured outbox'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "migrate" -d 'Bring the database to the configured schema (adds; drops only with --prune-functions)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "partitions" -d 'Manage the delivery log\'s daily partitions (PostgreSQL)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "inspect" -d 'What is pending, processing, failed; rows; where an event is'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "requeue" -d 'Return failed rows to pending (by --id, or by filter with --all)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "discard" -d 'Delete failed rows an operator gave up on (by --id, or by filter with --all)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "emit" -d 'Stage an event (or --count N of them)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "hlc" -d 'The HLC checkpoint'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "doctor" -d 'Check what the specification warns about: ok / warn / fail (exit 1 on a fail)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "storage" -d 'Retain → consume storage, step by step'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "relay" -d 'Relay events to their destinations, once or in a loop'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "route" -d 'Pause and resume a route on every relay; list routes and their pauses'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "replay" -d 'Publish delivered events again, selected and in order, to a destination (--to)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "top" -d 'A live view of the outbox and its relays (one snapshot in a pipe)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "init" -d 'Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "completions" -d 'Print the shell completion script'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "man" -d 'Print the man page (or write one per command with --out DIR)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and not __fish_seen_subcommand_from schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from schema" -f -a "print" -d 'Print the schema, ready to paste into a migration file'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from partitions" -f -a "list" -d 'Every partition with its bounds (from the catalog), size and flags'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from partitions" -f -a "add-ahead" -d 'Attach a partition for each missing UTC day from today to today + N'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from partitions" -f -a "drop-expired" -d 'Drop day partitions whose upper bound is at or before today - N (destructive)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from partitions" -f -a "check" -d 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "summary" -d 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "pending" -d 'Pending rows, oldest first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "failed" -d 'Failed (parked) rows, oldest first; with --group, grouped by their error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "blocked" -d 'Keys strict order holds back: each key\'s parked, in-flight or retrying head row and how many rows wait behind it, most first'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "relays" -d 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "event" -d 'Where an event is: its outbox row, or its delivery-log records'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from hlc" -f -a "show" -d 'The checkpoint rows, the max, and its distance from the wall clock'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from storage" -f -a "status" -d 'Where the table stands: columns, processing and published rows, the next step'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from storage" -f -a "to-consume" -d 'Walk the retain → consume steps (the next one, or --step N)'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from route" -f -a "pause" -d 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from route" -f -a "resume" -d 'Claim a paused route again'
complete -c outboxctl -n "__fish_outboxctl_using_subcommand help; and __fish_seen_subcommand_from route" -f -a "list" -d 'Routes configured or served, paused or active; with --history every pause and resume'
