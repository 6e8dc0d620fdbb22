package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;

/** Why a record went to the dead-letter topic: the code its header carries. */
@Pure
public enum DeadLetterReason {
    /** The key is not {@code cluster/Kind.group/namespace/name} of a kind this application writes. */
    UNKNOWN_KEY("unknown-key"),
    /** The value is not JSON. */
    NOT_JSON("not-json"),
    /** The value is JSON, but not an object of a kind the rules read. */
    UNKNOWN_KIND("unknown-kind"),
    /** An object of a known kind that cannot be read (a field of the wrong type, a negative count, ...). */
    MALFORMED_OBJECT("malformed-object"),
    /** An object too large to send even with only the fields the rules read: ingest sent a stand-in. */
    TOO_LARGE("too-large");

    private final String code;

    DeadLetterReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
