
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'outboxctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'outboxctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'outboxctl' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the schema (DDL or mongosh script) for the configured outbox')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Bring the database to the configured schema (adds; drops only with --prune-functions)')
            [CompletionResult]::new('partitions', 'partitions', [CompletionResultType]::ParameterValue, 'Manage the delivery log''s daily partitions (PostgreSQL)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'What is pending, processing, failed; rows; where an event is')
            [CompletionResult]::new('requeue', 'requeue', [CompletionResultType]::ParameterValue, 'Return failed rows to pending (by --id, or by filter with --all)')
            [CompletionResult]::new('discard', 'discard', [CompletionResultType]::ParameterValue, 'Delete failed rows an operator gave up on (by --id, or by filter with --all)')
            [CompletionResult]::new('emit', 'emit', [CompletionResultType]::ParameterValue, 'Stage an event (or --count N of them)')
            [CompletionResult]::new('hlc', 'hlc', [CompletionResultType]::ParameterValue, 'The HLC checkpoint')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check what the specification warns about: ok / warn / fail (exit 1 on a fail)')
            [CompletionResult]::new('storage', 'storage', [CompletionResultType]::ParameterValue, 'Retain → consume storage, step by step')
            [CompletionResult]::new('relay', 'relay', [CompletionResultType]::ParameterValue, 'Relay events to their destinations, once or in a loop')
            [CompletionResult]::new('route', 'route', [CompletionResultType]::ParameterValue, 'Pause and resume a route on every relay; list routes and their pauses')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Publish delivered events again, selected and in order, to a destination (--to)')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live view of the outbox and its relays (one snapshot in a pipe)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (or write one per command with --out DIR)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;schema' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('print', 'print', [CompletionResultType]::ParameterValue, 'Print the schema, ready to paste into a migration file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;schema;print' {
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Backend to print for (default: from the database URL, else postgres)')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Optional parts to include beyond the configuration''s')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;schema;help' {
            [CompletionResult]::new('print', 'print', [CompletionResultType]::ParameterValue, 'Print the schema, ready to paste into a migration file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;schema;help;print' {
            break
        }
        'outboxctl;schema;help;help' {
            break
        }
        'outboxctl;migrate' {
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'lock_timeout for each change to an existing table (default: half relay.pass_statement_timeout)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first when a lock stays busy')
            [CompletionResult]::new('--lock-wait', '--lock-wait', [CompletionResultType]::ParameterName, 'How long to wait for another migrate of the same outbox to finish')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Change nothing; exit 1 when the database differs from the configured schema')
            [CompletionResult]::new('--prune-functions', '--prune-functions', [CompletionResultType]::ParameterName, 'Also drop the functions of the pass this configuration''s relay does not call (asks first)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;partitions' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every partition with its bounds (from the catalog), size and flags')
            [CompletionResult]::new('add-ahead', 'add-ahead', [CompletionResultType]::ParameterValue, 'Attach a partition for each missing UTC day from today to today + N')
            [CompletionResult]::new('drop-expired', 'drop-expired', [CompletionResultType]::ParameterValue, 'Drop day partitions whose upper bound is at or before today - N (destructive)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;partitions;list' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;partitions;add-ahead' {
            [CompletionResult]::new('--days', '--days', [CompletionResultType]::ParameterName, 'Days after today to cover (default: partitions.ahead_days, 7)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print which days would be added and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;partitions;drop-expired' {
            [CompletionResult]::new('--keep-days', '--keep-days', [CompletionResultType]::ParameterName, 'Days to keep (default: partitions.keep_days, 30)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be dropped and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;partitions;check' {
            [CompletionResult]::new('--min-ahead', '--min-ahead', [CompletionResultType]::ParameterName, 'Days from today that must be attached (today counts; default: partitions.ahead_days)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'lock_timeout of each change (default: partitions.lock_timeout, 200ms)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first when a lock stays busy (default: partitions.retries, 5)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Move rows out of the default partition into day partitions; attach empty days over gaps')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'With --fix: print what it would move and add, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;partitions;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every partition with its bounds (from the catalog), size and flags')
            [CompletionResult]::new('add-ahead', 'add-ahead', [CompletionResultType]::ParameterValue, 'Attach a partition for each missing UTC day from today to today + N')
            [CompletionResult]::new('drop-expired', 'drop-expired', [CompletionResultType]::ParameterValue, 'Drop day partitions whose upper bound is at or before today - N (destructive)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;partitions;help;list' {
            break
        }
        'outboxctl;partitions;help;add-ahead' {
            break
        }
        'outboxctl;partitions;help;drop-expired' {
            break
        }
        'outboxctl;partitions;help;check' {
            break
        }
        'outboxctl;partitions;help;help' {
            break
        }
        'outboxctl;inspect' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries')
            [CompletionResult]::new('pending', 'pending', [CompletionResultType]::ParameterValue, 'Pending rows, oldest first')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Failed (parked) rows, oldest first; with --group, grouped by their error')
            [CompletionResult]::new('blocked', 'blocked', [CompletionResultType]::ParameterValue, 'Keys strict order holds back: each key''s parked, in-flight or retrying head row and how many rows wait behind it, most first')
            [CompletionResult]::new('relays', 'relays', [CompletionResultType]::ParameterValue, 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error')
            [CompletionResult]::new('event', 'event', [CompletionResultType]::ParameterValue, 'Where an event is: its outbox row, or its delivery-log records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;inspect;summary' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;pending' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this event type')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only rows created longer ago than this')
            [CompletionResult]::new('--error-contains', '--error-contains', [CompletionResultType]::ParameterName, 'Only rows whose last_error contains this text')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many rows')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Rows after this row id (keyset pagination: pass the last id of the previous page)')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;failed' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this event type')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only rows created longer ago than this')
            [CompletionResult]::new('--error-contains', '--error-contains', [CompletionResultType]::ParameterName, 'Only rows whose last_error contains this text')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many rows')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Rows after this row id (keyset pagination: pass the last id of the previous page)')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group the rows by a fingerprint of their last error (numbers, ids, addresses, durations and quoted text masked), most rows first; its id serves `requeue`/`discard --group`')
            [CompletionResult]::new('--retrying', '--retrying', [CompletionResultType]::ParameterName, 'With --group: also rows waiting for a retry, not only parked ones')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;blocked' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many keys')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;relays' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;event' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;inspect;help' {
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries')
            [CompletionResult]::new('pending', 'pending', [CompletionResultType]::ParameterValue, 'Pending rows, oldest first')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Failed (parked) rows, oldest first; with --group, grouped by their error')
            [CompletionResult]::new('blocked', 'blocked', [CompletionResultType]::ParameterValue, 'Keys strict order holds back: each key''s parked, in-flight or retrying head row and how many rows wait behind it, most first')
            [CompletionResult]::new('relays', 'relays', [CompletionResultType]::ParameterValue, 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error')
            [CompletionResult]::new('event', 'event', [CompletionResultType]::ParameterValue, 'Where an event is: its outbox row, or its delivery-log records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;inspect;help;summary' {
            break
        }
        'outboxctl;inspect;help;pending' {
            break
        }
        'outboxctl;inspect;help;failed' {
            break
        }
        'outboxctl;inspect;help;blocked' {
            break
        }
        'outboxctl;inspect;help;relays' {
            break
        }
        'outboxctl;inspect;help;event' {
            break
        }
        'outboxctl;inspect;help;help' {
            break
        }
        'outboxctl;requeue' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Row ids (repeatable, or comma-separated)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'The failed rows of these failure groups (ids from `inspect failed --group`; repeatable or comma-separated), as they are now; the filters narrow them further')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this event type')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only rows created longer ago than this')
            [CompletionResult]::new('--error-contains', '--error-contains', [CompletionResultType]::ParameterName, 'Only rows whose last_error contains this text')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every failed row that matches the filters (required when selecting by filter)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;discard' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Row ids (repeatable, or comma-separated)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'The failed rows of these failure groups (ids from `inspect failed --group`; repeatable or comma-separated), as they are now; the filters narrow them further')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Only this route')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this event type')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only rows created longer ago than this')
            [CompletionResult]::new('--error-contains', '--error-contains', [CompletionResultType]::ParameterName, 'Only rows whose last_error contains this text')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Keep each row discarded, whole, as a JSON line appended to FILE (synced before it is deleted)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every failed row that matches the filters (required when selecting by filter)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;emit' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'The outbox route')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'The event type, e.g. order.placed')
            [CompletionResult]::new('--payload', '--payload', [CompletionResultType]::ParameterName, 'The payload: a JSON object, @FILE, or - for standard input')
            [CompletionResult]::new('--ordering-key', '--ordering-key', [CompletionResultType]::ParameterName, 'The ordering key (default: none; the message is then keyed by its event id)')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'The tenant''s UUID (required when the outbox is tenant-aware)')
            [CompletionResult]::new('--correlation-id', '--correlation-id', [CompletionResultType]::ParameterName, 'Stored in correlation_id, sent as the forze_correlation_id header')
            [CompletionResult]::new('--causation-id', '--causation-id', [CompletionResultType]::ParameterName, 'Stored in causation_id, sent as the forze_causation_id header')
            [CompletionResult]::new('--execution-id', '--execution-id', [CompletionResultType]::ParameterName, 'Stored in execution_id, sent as the forze_execution_id header')
            [CompletionResult]::new('--event-id', '--event-id', [CompletionResultType]::ParameterName, 'The event id (default: a new time-ordered UUID); staging it again is deduplicated')
            [CompletionResult]::new('--traceparent', '--traceparent', [CompletionResultType]::ParameterName, 'W3C traceparent to store (needs propagate_trace)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stage this many events (same payload, new ids), e.g. for load tests')
            [CompletionResult]::new('--node-key', '--node-key', [CompletionResultType]::ParameterName, 'HLC checkpoint node key')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;hlc' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The checkpoint rows, the max, and its distance from the wall clock')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;hlc;show' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;hlc;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The checkpoint rows, the max, and its distance from the wall clock')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;hlc;help;show' {
            break
        }
        'outboxctl;hlc;help;help' {
            break
        }
        'outboxctl;doctor' {
            [CompletionResult]::new('--max-pending-age', '--max-pending-age', [CompletionResultType]::ParameterName, 'Fail when the oldest pending row is older than this')
            [CompletionResult]::new('--max-xmin-age', '--max-xmin-age', [CompletionResultType]::ParameterName, 'Warn when a transaction holding the xmin horizon is older than this; fail past 12 times it (PostgreSQL)')
            [CompletionResult]::new('--max-xmin-xids', '--max-xmin-xids', [CompletionResultType]::ParameterName, 'Warn when a replication slot or walsender holds the xmin horizon back more transaction ids than this; fail past 12 times it (PostgreSQL)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;storage' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Where the table stands: columns, processing and published rows, the next step')
            [CompletionResult]::new('to-consume', 'to-consume', [CompletionResultType]::ParameterValue, 'Walk the retain → consume steps (the next one, or --step N)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;storage;status' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;storage;to-consume' {
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Run this step (default: the next one)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Step 2: wait up to this long for processing and published rows to be gone (without it: report what blocks, exit 5)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'lock_timeout for step 3''s table lock')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first when the lock stays busy')
            [CompletionResult]::new('--check-timeout', '--check-timeout', [CompletionResultType]::ParameterName, 'statement_timeout for step 3''s re-check and drop while the table is locked')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Change nothing: step 1 confirms nothing, step 3 prints its SQL')
            [CompletionResult]::new('--reclaim-disabled', '--reclaim-disabled', [CompletionResultType]::ParameterName, 'Every relay on this table runs with reclaim off (reclaim_stale_after: null); step 3 needs it')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;storage;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Where the table stands: columns, processing and published rows, the next step')
            [CompletionResult]::new('to-consume', 'to-consume', [CompletionResultType]::ParameterValue, 'Walk the retain → consume steps (the next one, or --step N)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;storage;help;status' {
            break
        }
        'outboxctl;storage;help;to-consume' {
            break
        }
        'outboxctl;storage;help;help' {
            break
        }
        'outboxctl;relay' {
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Relay only these routes (repeatable or comma-separated; default: every route in relay.routes)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Destination for the given routes (default stdout): stdout, file:PATH, postgres-table:SCHEMA.TABLE, nats://, amqp://, redis://, kafka://, http(s)://')
            [CompletionResult]::new('--max-passes', '--max-passes', [CompletionResultType]::ParameterName, 'With --once: stop each route after this many passes')
            [CompletionResult]::new('--metrics-addr', '--metrics-addr', [CompletionResultType]::ParameterName, 'With --loop: serve /metrics (Prometheus), /healthz and /readyz on this address')
            [CompletionResult]::new('--health-max-failing', '--health-max-failing', [CompletionResultType]::ParameterName, 'With --metrics-addr: /healthz fails when a route''s passes have failed for longer than this')
            [CompletionResult]::new('--metrics-header-timeout', '--metrics-header-timeout', [CompletionResultType]::ParameterName, 'With --metrics-addr: how long a client may take to send its request headers')
            [CompletionResult]::new('--metrics-max-connections', '--metrics-max-connections', [CompletionResultType]::ParameterName, 'With --metrics-addr: at most this many connections at once (an idle one makes room)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Drain every route until a claim comes back short, print a summary, exit')
            [CompletionResult]::new('--loop', '--loop', [CompletionResultType]::ParameterName, 'Run until SIGTERM/SIGINT, then drain and exit 0')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;route' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Claim a paused route again')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Routes configured or served, paused or active; with --history every pause and resume')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;route;pause' {
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant''s rows (tenant-aware outboxes)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (shown by route list, inspect, top and the relays'' logs)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;route;resume' {
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'The pause of this tenant (tenant-aware outboxes)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;route;list' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'Every pause and resume ever made, oldest first')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;route;help' {
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Claim a paused route again')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Routes configured or served, paused or active; with --history every pause and resume')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;route;help;pause' {
            break
        }
        'outboxctl;route;help;resume' {
            break
        }
        'outboxctl;route;help;list' {
            break
        }
        'outboxctl;route;help;help' {
            break
        }
        'outboxctl;replay' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Where to publish: any destination the relay takes (stdout, file:PATH, nats://, amqp://, redis://, kafka://, http(s)://); required unless --dry-run')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Where delivered events are read: the outbox''s published rows (default), postgres-table:SCHEMA.TABLE or file:PATH')
            [CompletionResult]::new('--channel', '--channel', [CompletionResultType]::ParameterName, 'Subject, queue, stream or topic for every route [default: the route''s name]')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'Routes to replay, in this order (repeatable or comma-separated) [default: the configured routes]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Delivered at or after (RFC 3339, or a duration ago such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Delivered before (RFC 3339, or a duration ago such as 30m)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Only this broker key (the ordering key, or the event id of a row without one)')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only this tenant')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this event type')
            [CompletionResult]::new('--event-id', '--event-id', [CompletionResultType]::ParameterName, 'Only these events (repeatable or comma-separated)')
            [CompletionResult]::new('--hlc-from', '--hlc-from', [CompletionResultType]::ParameterName, 'From this HLC on (the forze_hlc header''s form, or packed)')
            [CompletionResult]::new('--hlc-to', '--hlc-to', [CompletionResultType]::ParameterName, 'Up to this HLC, inclusive')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Events per second at most (publishes then go one at a time)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Events at most')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Tries again after a refusal that may pass (200 ms apart, doubling) before stopping')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Resume after this cursor (printed by an earlier replay''s summary)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Count what would be replayed (per route, first and last event); publish nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;top' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Refresh every (a snapshot''s rates: readings this far apart, at most 1s)')
            [CompletionResult]::new('--relay', '--relay', [CompletionResultType]::ParameterName, 'A relay''s metrics endpoint (its --metrics-addr), repeatable: http://HOST:PORT')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only routes whose name contains this')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Print one snapshot and exit (what a pipe or cron gets anyway)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;init' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Where to write the file [default: the --config file, else outboxctl.yaml]')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'A first route to relay (with --to, its destination)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The first route''s destination (stdout, file:PATH, nats://…, amqp://…, redis://…, kafka://…, https://…)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite an existing file')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;completions' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;man' {
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write one page per command (outboxctl.1, outboxctl-relay.1, …) into this folder')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log lines on stderr as text or JSON (filter with RUST_LOG)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Give up connecting after this long')
            [CompletionResult]::new('--relation', '--relation', [CompletionResultType]::ParameterName, 'PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]')
            [CompletionResult]::new('--storage', '--storage', [CompletionResultType]::ParameterName, 'Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]')
            [CompletionResult]::new('--delivery-log', '--delivery-log', [CompletionResultType]::ParameterName, 'Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]')
            [CompletionResult]::new('--hlc-checkpoint', '--hlc-checkpoint', [CompletionResultType]::ParameterName, 'HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]')
            [CompletionResult]::new('--key-order', '--key-order', [CompletionResultType]::ParameterName, 'Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (needed for destructive steps without a terminal)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success but data')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never colour output (also NO_COLOR)')
            [CompletionResult]::new('--hlc-ordering', '--hlc-ordering', [CompletionResultType]::ParameterName, 'Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]')
            [CompletionResult]::new('--propagate-trace', '--propagate-trace', [CompletionResultType]::ParameterName, 'Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'outboxctl;help' {
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the schema (DDL or mongosh script) for the configured outbox')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Bring the database to the configured schema (adds; drops only with --prune-functions)')
            [CompletionResult]::new('partitions', 'partitions', [CompletionResultType]::ParameterValue, 'Manage the delivery log''s daily partitions (PostgreSQL)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'What is pending, processing, failed; rows; where an event is')
            [CompletionResult]::new('requeue', 'requeue', [CompletionResultType]::ParameterValue, 'Return failed rows to pending (by --id, or by filter with --all)')
            [CompletionResult]::new('discard', 'discard', [CompletionResultType]::ParameterValue, 'Delete failed rows an operator gave up on (by --id, or by filter with --all)')
            [CompletionResult]::new('emit', 'emit', [CompletionResultType]::ParameterValue, 'Stage an event (or --count N of them)')
            [CompletionResult]::new('hlc', 'hlc', [CompletionResultType]::ParameterValue, 'The HLC checkpoint')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check what the specification warns about: ok / warn / fail (exit 1 on a fail)')
            [CompletionResult]::new('storage', 'storage', [CompletionResultType]::ParameterValue, 'Retain → consume storage, step by step')
            [CompletionResult]::new('relay', 'relay', [CompletionResultType]::ParameterValue, 'Relay events to their destinations, once or in a loop')
            [CompletionResult]::new('route', 'route', [CompletionResultType]::ParameterValue, 'Pause and resume a route on every relay; list routes and their pauses')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Publish delivered events again, selected and in order, to a destination (--to)')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live view of the outbox and its relays (one snapshot in a pipe)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (or write one per command with --out DIR)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'outboxctl;help;schema' {
            [CompletionResult]::new('print', 'print', [CompletionResultType]::ParameterValue, 'Print the schema, ready to paste into a migration file')
            break
        }
        'outboxctl;help;schema;print' {
            break
        }
        'outboxctl;help;migrate' {
            break
        }
        'outboxctl;help;partitions' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every partition with its bounds (from the catalog), size and flags')
            [CompletionResult]::new('add-ahead', 'add-ahead', [CompletionResultType]::ParameterValue, 'Attach a partition for each missing UTC day from today to today + N')
            [CompletionResult]::new('drop-expired', 'drop-expired', [CompletionResultType]::ParameterValue, 'Drop day partitions whose upper bound is at or before today - N (destructive)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps')
            break
        }
        'outboxctl;help;partitions;list' {
            break
        }
        'outboxctl;help;partitions;add-ahead' {
            break
        }
        'outboxctl;help;partitions;drop-expired' {
            break
        }
        'outboxctl;help;partitions;check' {
            break
        }
        'outboxctl;help;inspect' {
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries')
            [CompletionResult]::new('pending', 'pending', [CompletionResultType]::ParameterValue, 'Pending rows, oldest first')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Failed (parked) rows, oldest first; with --group, grouped by their error')
            [CompletionResult]::new('blocked', 'blocked', [CompletionResultType]::ParameterValue, 'Keys strict order holds back: each key''s parked, in-flight or retrying head row and how many rows wait behind it, most first')
            [CompletionResult]::new('relays', 'relays', [CompletionResultType]::ParameterValue, 'The relays registered (outbox.registry): where each runs, its routes, live, stale or stopped, its last pass and error')
            [CompletionResult]::new('event', 'event', [CompletionResultType]::ParameterValue, 'Where an event is: its outbox row, or its delivery-log records')
            break
        }
        'outboxctl;help;inspect;summary' {
            break
        }
        'outboxctl;help;inspect;pending' {
            break
        }
        'outboxctl;help;inspect;failed' {
            break
        }
        'outboxctl;help;inspect;blocked' {
            break
        }
        'outboxctl;help;inspect;relays' {
            break
        }
        'outboxctl;help;inspect;event' {
            break
        }
        'outboxctl;help;requeue' {
            break
        }
        'outboxctl;help;discard' {
            break
        }
        'outboxctl;help;emit' {
            break
        }
        'outboxctl;help;hlc' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The checkpoint rows, the max, and its distance from the wall clock')
            break
        }
        'outboxctl;help;hlc;show' {
            break
        }
        'outboxctl;help;doctor' {
            break
        }
        'outboxctl;help;storage' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Where the table stands: columns, processing and published rows, the next step')
            [CompletionResult]::new('to-consume', 'to-consume', [CompletionResultType]::ParameterValue, 'Walk the retain → consume steps (the next one, or --step N)')
            break
        }
        'outboxctl;help;storage;status' {
            break
        }
        'outboxctl;help;storage;to-consume' {
            break
        }
        'outboxctl;help;relay' {
            break
        }
        'outboxctl;help;route' {
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in flight finishes); its rows stay pending')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Claim a paused route again')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Routes configured or served, paused or active; with --history every pause and resume')
            break
        }
        'outboxctl;help;route;pause' {
            break
        }
        'outboxctl;help;route;resume' {
            break
        }
        'outboxctl;help;route;list' {
            break
        }
        'outboxctl;help;replay' {
            break
        }
        'outboxctl;help;top' {
            break
        }
        'outboxctl;help;init' {
            break
        }
        'outboxctl;help;completions' {
            break
        }
        'outboxctl;help;man' {
            break
        }
        'outboxctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
