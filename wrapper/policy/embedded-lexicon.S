/* The word lists of tools/lexicon/, each after a "%category NAME" line, linked into the binary. */
	.section .rodata
	.global khsend_embedded_lexicon
	.global khsend_embedded_lexicon_end
khsend_embedded_lexicon:
	.incbin KHSEND_LEXICON_FILE
khsend_embedded_lexicon_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
