/* SPDX-License-Identifier: GPL-2.0-only */
/* The hooks in hooks/, linked into the binary for "khsend install-hooks". */
	.section .rodata
	.global khsend_hook_sendemail_validate
	.global khsend_hook_applypatch_msg
	.global khsend_hook_pre_applypatch
	.global khsend_hook_pre_commit
khsend_hook_sendemail_validate:
	.incbin "hooks/sendemail-validate"
	.byte 0
khsend_hook_applypatch_msg:
	.incbin "hooks/applypatch-msg"
	.byte 0
khsend_hook_pre_applypatch:
	.incbin "hooks/pre-applypatch"
	.byte 0
khsend_hook_pre_commit:
	.incbin "hooks/pre-commit"
	.byte 0
	.section .note.GNU-stack,"",@progbits
