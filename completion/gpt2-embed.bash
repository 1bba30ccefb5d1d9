# SPDX-License-Identifier: MIT
# bash completion for gpt2-embed: commands, options, and the values of --model, --format,
# --special and the other options with a fixed set of values.
#
# Nothing is listed here: the script asks the installed program at run time (its --help,
# in the C locale so that translated help does not matter), so the completion always
# matches the program's own command table and option tables. The answers are cached per
# shell session and program path.

declare -gA _gpt2_embed_cache 2>/dev/null || true

# The help text of `prog [cmd] --help`, cached.
_gpt2_embed_help()
{
    local prog=$1 cmd=$2 key="$1|$2"
    if [[ -z ${_gpt2_embed_cache[$key]+set} ]]; then
        _gpt2_embed_cache[$key]=$(LC_ALL=C LANGUAGE= "$prog" $cmd --help 2>/dev/null)
    fi
    printf '%s\n' "${_gpt2_embed_cache[$key]}"
}

# The commands: the first word of each line of the "commands:" section.
_gpt2_embed_commands()
{
    _gpt2_embed_help "$1" "" | awk '/^commands:/ {on = 1; next} on && /^[^ ]/ {on = 0}
                                     on && /^  [a-z]/ {print $1}'
}

# Every option the command's help names (its option lines and usage lines).
_gpt2_embed_options()
{
    _gpt2_embed_help "$1" "$2" | grep -oE '(^|[][ ,|(])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b' |
        sed -E 's/^[][ ,|(]//' | sort -u
}

# The values of option $3: from a choice metavar ("--pe learned|sinusoidal"), else from the
# option's help line when it is a plain list ("table (default), json, npy, csv, raw").
_gpt2_embed_values()
{
    local help line vals pieces
    help=$(_gpt2_embed_help "$1" "$2")
    vals=$(grep -oE -- "$3[ =][a-z0-9.-]+(\|[a-z0-9.-]+)+" <<<"$help" | head -n 1 |
           sed -E "s/^$3[ =]//" | tr '|' ' ')
    if [[ -z $vals ]]; then
        line=$(grep -E -- "^ +(-[a-zA-Z], )?$3( [A-Z][A-Z_.]*)? " <<<"$help" | head -n 1 |
               sed -E "s/^ +(-[a-zA-Z], )?$3( [A-Z][A-Z_.]*)? +//; s/\([^)]*\)//g; s/\[.*$//; s/ or /, /g")
        # only when every comma-separated piece of the line is one word
        local piece ok=1
        IFS=',' read -ra pieces <<<"$line"
        for piece in "${pieces[@]}"; do
            piece=$(echo $piece)
            [[ $piece =~ ^[a-z0-9][a-z0-9.-]*$ ]] || ok=0
        done
        if [[ -n $line && $ok == 1 ]]; then vals=$(tr ',' ' ' <<<"$line"); fi
    fi
    echo $vals
}

_gpt2_embed()
{
    local cur prev prog cmd i w
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    prog=${COMP_WORDS[0]}
    COMPREPLY=()

    # the command is the first word that names one ("embed" is also the default)
    local cmds
    cmds=$(_gpt2_embed_commands "$prog")
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w != -* ]] && grep -qxF -- "$w" <<<"$cmds"; then cmd=$w; break; fi
    done

    case $prev in
    --weights|-o|-f|--plot|--json|--out)
        COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    --tokenizer|--dir)
        COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    -*)
        local vals
        vals=$(_gpt2_embed_values "$prog" "${cmd:-embed}" "$prev")
        if [[ -n $vals ]]; then COMPREPLY=($(compgen -W "$vals" -- "$cur")); return; fi ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpt2_embed_options "$prog" "${cmd:-embed}")" -- "$cur"))
    elif [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
    fi
}

complete -F _gpt2_embed gpt2-embed
