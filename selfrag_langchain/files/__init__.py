"""Files on disk: where the package keeps its data (:mod:`.paths`), and writes a reader never sees half-done
(:mod:`.durable`)."""
