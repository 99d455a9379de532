"""Text every layer handles: untrusted text neutralised at the models' boundary (:mod:`.boundary`), and
sentences split one way everywhere (:mod:`.sentences`), what English's lexicon knows a word as (:mod:`.lexicon`),
the words and numerals a number is written with (:mod:`.numerals`), and British and American spellings of a word
written alike (:mod:`.spelling`)."""
