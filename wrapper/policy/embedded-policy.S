/* SPDX-License-Identifier: GPL-2.0-only */
/* The shipped policy.yaml, linked into the binary as the fallback system layer. */
	.section .rodata
	.global khsend_embedded_policy
	.global khsend_embedded_policy_end
khsend_embedded_policy:
	.incbin KHSEND_POLICY_FILE
khsend_embedded_policy_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
