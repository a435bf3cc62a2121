_outboxctl() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="outboxctl"
                ;;
            outboxctl,completions)
                cmd="outboxctl__subcmd__completions"
                ;;
            outboxctl,discard)
                cmd="outboxctl__subcmd__discard"
                ;;
            outboxctl,doctor)
                cmd="outboxctl__subcmd__doctor"
                ;;
            outboxctl,emit)
                cmd="outboxctl__subcmd__emit"
                ;;
            outboxctl,help)
                cmd="outboxctl__subcmd__help"
                ;;
            outboxctl,hlc)
                cmd="outboxctl__subcmd__hlc"
                ;;
            outboxctl,init)
                cmd="outboxctl__subcmd__init"
                ;;
            outboxctl,inspect)
                cmd="outboxctl__subcmd__inspect"
                ;;
            outboxctl,man)
                cmd="outboxctl__subcmd__man"
                ;;
            outboxctl,migrate)
                cmd="outboxctl__subcmd__migrate"
                ;;
            outboxctl,partitions)
                cmd="outboxctl__subcmd__partitions"
                ;;
            outboxctl,relay)
                cmd="outboxctl__subcmd__relay"
                ;;
            outboxctl,replay)
                cmd="outboxctl__subcmd__replay"
                ;;
            outboxctl,requeue)
                cmd="outboxctl__subcmd__requeue"
                ;;
            outboxctl,route)
                cmd="outboxctl__subcmd__route"
                ;;
            outboxctl,schema)
                cmd="outboxctl__subcmd__schema"
                ;;
            outboxctl,storage)
                cmd="outboxctl__subcmd__storage"
                ;;
            outboxctl,top)
                cmd="outboxctl__subcmd__top"
                ;;
            outboxctl__subcmd__help,completions)
                cmd="outboxctl__subcmd__help__subcmd__completions"
                ;;
            outboxctl__subcmd__help,discard)
                cmd="outboxctl__subcmd__help__subcmd__discard"
                ;;
            outboxctl__subcmd__help,doctor)
                cmd="outboxctl__subcmd__help__subcmd__doctor"
                ;;
            outboxctl__subcmd__help,emit)
                cmd="outboxctl__subcmd__help__subcmd__emit"
                ;;
            outboxctl__subcmd__help,help)
                cmd="outboxctl__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__help,hlc)
                cmd="outboxctl__subcmd__help__subcmd__hlc"
                ;;
            outboxctl__subcmd__help,init)
                cmd="outboxctl__subcmd__help__subcmd__init"
                ;;
            outboxctl__subcmd__help,inspect)
                cmd="outboxctl__subcmd__help__subcmd__inspect"
                ;;
            outboxctl__subcmd__help,man)
                cmd="outboxctl__subcmd__help__subcmd__man"
                ;;
            outboxctl__subcmd__help,migrate)
                cmd="outboxctl__subcmd__help__subcmd__migrate"
                ;;
            outboxctl__subcmd__help,partitions)
                cmd="outboxctl__subcmd__help__subcmd__partitions"
                ;;
            outboxctl__subcmd__help,relay)
                cmd="outboxctl__subcmd__help__subcmd__relay"
                ;;
            outboxctl__subcmd__help,replay)
                cmd="outboxctl__subcmd__help__subcmd__replay"
                ;;
            outboxctl__subcmd__help,requeue)
                cmd="outboxctl__subcmd__help__subcmd__requeue"
                ;;
            outboxctl__subcmd__help,route)
                cmd="outboxctl__subcmd__help__subcmd__route"
                ;;
            outboxctl__subcmd__help,schema)
                cmd="outboxctl__subcmd__help__subcmd__schema"
                ;;
            outboxctl__subcmd__help,storage)
                cmd="outboxctl__subcmd__help__subcmd__storage"
                ;;
            outboxctl__subcmd__help,top)
                cmd="outboxctl__subcmd__help__subcmd__top"
                ;;
            outboxctl__subcmd__help__subcmd__hlc,show)
                cmd="outboxctl__subcmd__help__subcmd__hlc__subcmd__show"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,blocked)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__blocked"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,event)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__event"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,failed)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__failed"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,pending)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__pending"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,relays)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__relays"
                ;;
            outboxctl__subcmd__help__subcmd__inspect,summary)
                cmd="outboxctl__subcmd__help__subcmd__inspect__subcmd__summary"
                ;;
            outboxctl__subcmd__help__subcmd__partitions,add-ahead)
                cmd="outboxctl__subcmd__help__subcmd__partitions__subcmd__add__subcmd__ahead"
                ;;
            outboxctl__subcmd__help__subcmd__partitions,check)
                cmd="outboxctl__subcmd__help__subcmd__partitions__subcmd__check"
                ;;
            outboxctl__subcmd__help__subcmd__partitions,drop-expired)
                cmd="outboxctl__subcmd__help__subcmd__partitions__subcmd__drop__subcmd__expired"
                ;;
            outboxctl__subcmd__help__subcmd__partitions,list)
                cmd="outboxctl__subcmd__help__subcmd__partitions__subcmd__list"
                ;;
            outboxctl__subcmd__help__subcmd__route,list)
                cmd="outboxctl__subcmd__help__subcmd__route__subcmd__list"
                ;;
            outboxctl__subcmd__help__subcmd__route,pause)
                cmd="outboxctl__subcmd__help__subcmd__route__subcmd__pause"
                ;;
            outboxctl__subcmd__help__subcmd__route,resume)
                cmd="outboxctl__subcmd__help__subcmd__route__subcmd__resume"
                ;;
            outboxctl__subcmd__help__subcmd__schema,print)
                cmd="outboxctl__subcmd__help__subcmd__schema__subcmd__print"
                ;;
            outboxctl__subcmd__help__subcmd__storage,status)
                cmd="outboxctl__subcmd__help__subcmd__storage__subcmd__status"
                ;;
            outboxctl__subcmd__help__subcmd__storage,to-consume)
                cmd="outboxctl__subcmd__help__subcmd__storage__subcmd__to__subcmd__consume"
                ;;
            outboxctl__subcmd__hlc,help)
                cmd="outboxctl__subcmd__hlc__subcmd__help"
                ;;
            outboxctl__subcmd__hlc,show)
                cmd="outboxctl__subcmd__hlc__subcmd__show"
                ;;
            outboxctl__subcmd__hlc__subcmd__help,help)
                cmd="outboxctl__subcmd__hlc__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__hlc__subcmd__help,show)
                cmd="outboxctl__subcmd__hlc__subcmd__help__subcmd__show"
                ;;
            outboxctl__subcmd__inspect,blocked)
                cmd="outboxctl__subcmd__inspect__subcmd__blocked"
                ;;
            outboxctl__subcmd__inspect,event)
                cmd="outboxctl__subcmd__inspect__subcmd__event"
                ;;
            outboxctl__subcmd__inspect,failed)
                cmd="outboxctl__subcmd__inspect__subcmd__failed"
                ;;
            outboxctl__subcmd__inspect,help)
                cmd="outboxctl__subcmd__inspect__subcmd__help"
                ;;
            outboxctl__subcmd__inspect,pending)
                cmd="outboxctl__subcmd__inspect__subcmd__pending"
                ;;
            outboxctl__subcmd__inspect,relays)
                cmd="outboxctl__subcmd__inspect__subcmd__relays"
                ;;
            outboxctl__subcmd__inspect,summary)
                cmd="outboxctl__subcmd__inspect__subcmd__summary"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,blocked)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__blocked"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,event)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__event"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,failed)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__failed"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,help)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,pending)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__pending"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,relays)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__relays"
                ;;
            outboxctl__subcmd__inspect__subcmd__help,summary)
                cmd="outboxctl__subcmd__inspect__subcmd__help__subcmd__summary"
                ;;
            outboxctl__subcmd__partitions,add-ahead)
                cmd="outboxctl__subcmd__partitions__subcmd__add__subcmd__ahead"
                ;;
            outboxctl__subcmd__partitions,check)
                cmd="outboxctl__subcmd__partitions__subcmd__check"
                ;;
            outboxctl__subcmd__partitions,drop-expired)
                cmd="outboxctl__subcmd__partitions__subcmd__drop__subcmd__expired"
                ;;
            outboxctl__subcmd__partitions,help)
                cmd="outboxctl__subcmd__partitions__subcmd__help"
                ;;
            outboxctl__subcmd__partitions,list)
                cmd="outboxctl__subcmd__partitions__subcmd__list"
                ;;
            outboxctl__subcmd__partitions__subcmd__help,add-ahead)
                cmd="outboxctl__subcmd__partitions__subcmd__help__subcmd__add__subcmd__ahead"
                ;;
            outboxctl__subcmd__partitions__subcmd__help,check)
                cmd="outboxctl__subcmd__partitions__subcmd__help__subcmd__check"
                ;;
            outboxctl__subcmd__partitions__subcmd__help,drop-expired)
                cmd="outboxctl__subcmd__partitions__subcmd__help__subcmd__drop__subcmd__expired"
                ;;
            outboxctl__subcmd__partitions__subcmd__help,help)
                cmd="outboxctl__subcmd__partitions__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__partitions__subcmd__help,list)
                cmd="outboxctl__subcmd__partitions__subcmd__help__subcmd__list"
                ;;
            outboxctl__subcmd__route,help)
                cmd="outboxctl__subcmd__route__subcmd__help"
                ;;
            outboxctl__subcmd__route,list)
                cmd="outboxctl__subcmd__route__subcmd__list"
                ;;
            outboxctl__subcmd__route,pause)
                cmd="outboxctl__subcmd__route__subcmd__pause"
                ;;
            outboxctl__subcmd__route,resume)
                cmd="outboxctl__subcmd__route__subcmd__resume"
                ;;
            outboxctl__subcmd__route__subcmd__help,help)
                cmd="outboxctl__subcmd__route__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__route__subcmd__help,list)
                cmd="outboxctl__subcmd__route__subcmd__help__subcmd__list"
                ;;
            outboxctl__subcmd__route__subcmd__help,pause)
                cmd="outboxctl__subcmd__route__subcmd__help__subcmd__pause"
                ;;
            outboxctl__subcmd__route__subcmd__help,resume)
                cmd="outboxctl__subcmd__route__subcmd__help__subcmd__resume"
                ;;
            outboxctl__subcmd__schema,help)
                cmd="outboxctl__subcmd__schema__subcmd__help"
                ;;
            outboxctl__subcmd__schema,print)
                cmd="outboxctl__subcmd__schema__subcmd__print"
                ;;
            outboxctl__subcmd__schema__subcmd__help,help)
                cmd="outboxctl__subcmd__schema__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__schema__subcmd__help,print)
                cmd="outboxctl__subcmd__schema__subcmd__help__subcmd__print"
                ;;
            outboxctl__subcmd__storage,help)
                cmd="outboxctl__subcmd__storage__subcmd__help"
                ;;
            outboxctl__subcmd__storage,status)
                cmd="outboxctl__subcmd__storage__subcmd__status"
                ;;
            outboxctl__subcmd__storage,to-consume)
                cmd="outboxctl__subcmd__storage__subcmd__to__subcmd__consume"
                ;;
            outboxctl__subcmd__storage__subcmd__help,help)
                cmd="outboxctl__subcmd__storage__subcmd__help__subcmd__help"
                ;;
            outboxctl__subcmd__storage__subcmd__help,status)
                cmd="outboxctl__subcmd__storage__subcmd__help__subcmd__status"
                ;;
            outboxctl__subcmd__storage__subcmd__help,to-consume)
                cmd="outboxctl__subcmd__storage__subcmd__help__subcmd__to__subcmd__consume"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        outboxctl)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__completions)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__discard)
            opts="-y -v -q -h -V --id --all --group --route --tenant --type --older-than --error-contains --dry-run --save --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --error-contains)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__doctor)
            opts="-y -v -q -h -V --max-pending-age --max-xmin-age --max-xmin-xids --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-pending-age)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-xmin-age)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-xmin-xids)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__emit)
            opts="-y -v -q -h -V --route --type --payload --ordering-key --tenant --correlation-id --causation-id --execution-id --event-id --traceparent --count --node-key --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --payload)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ordering-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --correlation-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --causation-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --execution-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --event-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --traceparent)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help)
            opts="schema migrate partitions inspect requeue discard emit hlc doctor storage relay route replay top init completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__discard)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__doctor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__emit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__hlc)
            opts="show"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__hlc__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect)
            opts="summary pending failed blocked relays event"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__blocked)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__event)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__failed)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__pending)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__relays)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__inspect__subcmd__summary)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__partitions)
            opts="list add-ahead drop-expired check"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__partitions__subcmd__add__subcmd__ahead)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__partitions__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__partitions__subcmd__drop__subcmd__expired)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__partitions__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__relay)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__replay)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__requeue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__route)
            opts="pause resume list"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__route__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__route__subcmd__pause)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__route__subcmd__resume)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__schema)
            opts="print"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__schema__subcmd__print)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__storage)
            opts="status to-consume"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__storage__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__storage__subcmd__to__subcmd__consume)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__help__subcmd__top)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__hlc)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version show help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__hlc__subcmd__help)
            opts="show help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__hlc__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__hlc__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__hlc__subcmd__show)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__init)
            opts="-y -v -q -h -V --path --force --route --to --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect)
            opts="-y -v -q -h -V --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version summary pending failed blocked relays event help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__blocked)
            opts="-y -v -q -h -V --limit --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__event)
            opts="-y -v -q -h -V --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__failed)
            opts="-y -v -q -h -V --type --older-than --error-contains --limit --after --group --retrying --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --error-contains)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help)
            opts="summary pending failed blocked relays event help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__blocked)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__event)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__failed)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__pending)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__relays)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__help__subcmd__summary)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__pending)
            opts="-y -v -q -h -V --type --older-than --error-contains --limit --after --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --error-contains)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__relays)
            opts="-y -v -q -h -V --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__inspect__subcmd__summary)
            opts="-y -v -q -h -V --route --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__man)
            opts="-y -v -q -h -V --out --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__migrate)
            opts="-y -v -q -h -V --dry-run --check --lock-timeout --retries --lock-wait --prune-functions --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-wait)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version list add-ahead drop-expired check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__add__subcmd__ahead)
            opts="-y -v -q -h -V --days --dry-run --lock-timeout --retries --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --days)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__check)
            opts="-y -v -q -h -V --min-ahead --fix --dry-run --lock-timeout --retries --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --min-ahead)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__drop__subcmd__expired)
            opts="-y -v -q -h -V --keep-days --dry-run --lock-timeout --retries --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --keep-days)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help)
            opts="list add-ahead drop-expired check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help__subcmd__add__subcmd__ahead)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help__subcmd__drop__subcmd__expired)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__partitions__subcmd__list)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__relay)
            opts="-y -v -q -h -V --once --loop --route --to --max-passes --metrics-addr --health-max-failing --metrics-header-timeout --metrics-max-connections --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-passes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --health-max-failing)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-header-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-max-connections)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__replay)
            opts="-y -v -q -h -V --to --from --channel --route --since --until --key --tenant --type --event-id --hlc-from --hlc-to --rate --limit --retries --after --dry-run --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --event-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__requeue)
            opts="-y -v -q -h -V --id --all --group --route --tenant --type --older-than --error-contains --dry-run --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --error-contains)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version pause resume list help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__help)
            opts="pause resume list help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__help__subcmd__pause)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__help__subcmd__resume)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__list)
            opts="-y -v -q -h -V --history --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__pause)
            opts="-y -v -q -h -V --tenant --reason --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__route__subcmd__resume)
            opts="-y -v -q -h -V --tenant --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --tenant)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__schema)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version print help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__schema__subcmd__help)
            opts="print help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__schema__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__schema__subcmd__help__subcmd__print)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__schema__subcmd__print)
            opts="-y -v -q -h -V --backend --with --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --backend)
                    COMPREPLY=($(compgen -W "postgres mongo" -- "${cur}"))
                    return 0
                    ;;
                --with)
                    COMPREPLY=($(compgen -W "hlc traceparent checkpoint delivery-log replay wake registry all" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version status to-consume help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__help)
            opts="status to-consume help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__help__subcmd__to__subcmd__consume)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__status)
            opts="-y -v -q -h -V --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__storage__subcmd__to__subcmd__consume)
            opts="-y -v -q -h -V --step --dry-run --reclaim-disabled --wait --lock-timeout --retries --check-timeout --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wait)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        outboxctl__subcmd__top)
            opts="-y -v -q -h -V --interval --relay --filter --once --config --database-url --format --yes --verbose --quiet --no-color --log-format --connect-timeout --relation --collection --storage --delivery-log --hlc-checkpoint --hlc-ordering --propagate-trace --key-order --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relay)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filter)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json jsonl" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --relation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --collection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage)
                    COMPREPLY=($(compgen -W "retain consume" -- "${cur}"))
                    return 0
                    ;;
                --delivery-log)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hlc-checkpoint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-order)
                    COMPREPLY=($(compgen -W "best-effort strict" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _outboxctl -o nosort -o bashdefault -o default outboxctl
else
    complete -F _outboxctl -o bashdefault -o default outboxctl
fi
