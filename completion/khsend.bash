# SPDX-License-Identifier: GPL-2.0-only
# bash completion for khsend(1)                            -*- shell-script -*-
# shellcheck shell=bash
#
# Nothing here is a copy of khsend's interface, so nothing can drift from it:
# the commands come from "khsend --help", each command's options (and what
# their values are: <file>, <dir>, <id>, <text|json>, ...) from "khsend CMD
# -h", the policy ids from "khsend policy list --ids" (--allow: only the
# ids it accepts, --overridable), the hook names from "khsend install-hooks
# --list".  In send mode the options of git send-email itself come from
# git's own completion (_git_send_email), when bash-completion has it; for
# "khsend b4", those "b4 send --help" prints.
#
# Installed as $(BASHCOMPDIR)/khsend; bash-completion loads it on first use.

# Run the khsend being completed: the one typed, if it is a path.
__khsend() {
	local prog=khsend
	[[ ${words[0]-} == */* && -x ${words[0]} ]] && prog=${words[0]}
	command "$prog" "$@" 2>/dev/null
}

# The commands "khsend --help" lists.
__khsend_commands() {
	__khsend --help | sed -n '/^commands:/,/^$/s/^   \([a-z0-9][a-z0-9-]*\)  *[^ ].*/\1/p'
}

# "khsend [CMD] -h" as a table, a line per option: "--name argh" ("--[no-]x"
# gives --x and --no-x; argh is empty for an option without a value).
# Usage lines count too ("[--format=text|json]"), so options written only
# there are found as well.  Cached per command for the shell session.
declare -gA __khsend_tables 2>/dev/null
__khsend_table() {
	local key=${1:-.} line rest m table=""
	shift
	if [[ -z ${__khsend_tables[$key]+set} ]]; then
		while IFS= read -r line; do
			# A short option stands before its long name: "-o, --output <file>".
			if [[ $line =~ ^\ +-([a-zA-Z]),\ --([a-z0-9-]+)(\ \<([^>]*)\>)? ]]; then
				table+="-${BASH_REMATCH[1]} ${BASH_REMATCH[4]}"$'\n'
			fi
			# Only the usage lines and the options themselves, not their help text.
			case $line in
			usage:* | "   or:"* | "        "*\<*) rest=$line ;;
			" "*-*)
				rest=${line#"${line%%[! ]*}"}	# the option, up to its help text
				rest=${rest%%  *}
				;;
			*) continue ;;
			esac
			while [[ $rest =~ --(\[no-\])?([a-z0-9][a-z0-9-]*)(\[=\<([^>]*)\>\]|\ \<([^>]*)\>|=([a-z|]+))? ]]; do
				m=${BASH_REMATCH[0]}
				table+="--${BASH_REMATCH[2]} ${BASH_REMATCH[4]}${BASH_REMATCH[5]}${BASH_REMATCH[6]}"$'\n'
				[[ -n ${BASH_REMATCH[1]} ]] && table+="--no-${BASH_REMATCH[2]} "$'\n'
				rest=${rest#*"$m"}
			done
		done < <(if [[ $key == . ]]; then
			__khsend --help
		else
			# Only khsend's own help: "khsend send -h" may be git send-email's.
			__khsend "$@" -h | sed -n '1{/^usage: khsend /!q;};p'
		fi)
		__khsend_tables[$key]=$(printf '%s' "$table" | sort -u)
	fi
	printf '%s\n' "${__khsend_tables[$key]}"
}

# The policy ids, with the --policy files already on the command line
# (arguments: more options for "policy list", such as --overridable).
__khsend_ids() {
	local i policies=()
	for ((i = 1; i < ${#words[@]}; i++)); do
		case ${words[i]} in
		--policy) ((i + 1 < cword)) && policies+=(--policy "${words[i + 1]}") ;;
		--policy=*) policies+=("${words[i]}") ;;
		esac
	done
	__khsend policy list "${policies[@]}" --ids "$@"
}

# The refs of the repository here, for revisions.
__khsend_refs() {
	git for-each-ref --format='%(refname:short)' 2>/dev/null
}

# The options "b4 send --help" lists (argparse's "  -o DIR, --output-dir DIR").
__khsend_b4_options() {
	command b4 send --help 2>/dev/null | sed -n 's/^  \(-[^ ].*\)/\1/p' |
		sed 's/  .*//' | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,'
}

# Complete the value of an option whose help names it <argh>.
__khsend_value() {
	local argh=$1
	case $argh in
	file) _filedir ;;
	dir | tree) _filedir -d ;;
	id)
		# --allow takes only the entries that may be let through.
		if [[ $prev == --allow ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(__khsend_ids --overridable)" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(__khsend_ids)" -- "$cur")
		fi
		;;
	rev) mapfile -t COMPREPLY < <(compgen -W "$(__khsend_refs)" -- "$cur") ;;
	when) mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur") ;;
	*'|'*) mapfile -t COMPREPLY < <(compgen -W "${argh//|/ }" -- "$cur") ;;
	*) COMPREPLY=() ;;	# a number, or free text
	esac
}

# The argh of an option in a table; 1 if the option is not there or takes no value.
__khsend_argh() {
	local name=$1 opt argh
	while read -r opt argh; do
		[[ $opt == "$name" ]] || continue
		[[ -n $argh ]] || return 1
		printf '%s\n' "$argh"
		return 0
	done <<<"$2"
	return 1
}

# git send-email's own completion for this word, called as git's wrapper calls it.
__khsend_git_send_email() {
	declare -F _git_send_email >/dev/null ||
		{ declare -F __load_completion >/dev/null && __load_completion git; } >/dev/null 2>&1
	declare -F _git_send_email >/dev/null || return 1
	local cur words cword prev __git_cmd_idx=$1
	_get_comp_words_by_ref -n =: cur words cword prev
	_git_send_email
	# git's words carry their own trailing space ("--to=" has none).
	((${#COMPREPLY[@]})) && compopt -o nospace 2>/dev/null
	return 0
}

_khsend() {
	local cur prev words cword split
	_init_completion -s || return

	local i cmd="" at=0 table argh commands
	commands=$(__khsend_commands)
	# The command is the first word that is not an option; any other word
	# (a patch, a directory, a revision) means send mode.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--policy | --allow) ((i++)) ;;
		-*) ;;
		*)
			if grep -qxF -- "${words[i]}" <<<"$commands"; then
				cmd=${words[i]} at=$i
			else
				cmd=send
			fi
			break
			;;
		esac
	done

	if [[ $cmd == policy ]]; then
		# "policy check|list": the subcommands are in its usage lines.
		if ((cword == at + 1)); then
			mapfile -t COMPREPLY < <(compgen -W "$(__khsend policy -h |
				sed -n 's/.*khsend policy \([a-z][a-z]*\).*/\1/p')" -- "$cur")
			return
		fi
		table=$(__khsend_table "policy_${words[at + 1]}" policy "${words[at + 1]}")
	elif [[ -z $cmd || $cmd == send ]]; then
		# Before a command, or in send mode: the options of "khsend --help" and of send.
		table=$(__khsend_table .)$'\n'$(__khsend_table send send)
	else
		table=$(__khsend_table "$cmd" "$cmd")
	fi

	# A value: "--opt=<TAB>" (split) or "--opt <TAB>"; --color takes one only after "=".
	if [[ $prev == -* ]] && argh=$(__khsend_argh "$prev" "$table") &&
		[[ $argh != when || -n $split ]]; then
		__khsend_value "$argh"
		return
	fi

	# A value of one of git send-email's options: git knows what it takes.
	if [[ (-z $cmd || $cmd == send) && $prev == -* ]] && ! grep -q "^$prev " <<<"$table"; then
		__khsend_git_send_email "$at" && ((${#COMPREPLY[@]})) && return
		[[ -n $split ]] && return
	fi

	if [[ $cur == -* ]]; then
		local opts o
		opts=$(cut -d' ' -f1 <<<"$table" | sort -u)
		[[ $cmd == b4 ]] && opts+=$'\n'$(__khsend_b4_options)
		if [[ -z $cmd || $cmd == send ]] && __khsend_git_send_email "$at"; then
			# Ours beside git's, in git's style: each with its trailing space.
			for o in $(compgen -W "$opts" -- "$cur"); do
				COMPREPLY+=("$o ")
			done
			return
		fi
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi

	case $cmd in
	"")
		mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
		((${#COMPREPLY[@]})) || _filedir	# khsend 0001-<TAB>: send mode
		;;
	explain) mapfile -t COMPREPLY < <(compgen -W "$(__khsend_ids)" -- "$cur") ;;
	scan) _filedir -d ;;
	setup) COMPREPLY=() ;;
	install-hooks | uninstall-hooks)
		mapfile -t COMPREPLY < <(compgen -W "$(__khsend install-hooks --list)" -- "$cur")
		;;
	check)
		# Patches, directories, mboxes, and revisions.
		_filedir
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "$(__khsend_refs)" -- "$cur")
		;;
	cache) mapfile -t COMPREPLY < <(compgen -W "list prune" -- "$cur") ;;
	send)
		# Files, and the revisions git send-email would format.
		__khsend_git_send_email "$at" && ((${#COMPREPLY[@]})) && return
		_filedir
		;;
	*) _filedir ;;
	esac
} &&
	complete -F _khsend khsend
