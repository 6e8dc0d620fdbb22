package io.statusaggregator.writeback;

import io.statusaggregator.model.Pure;
import java.util.HashSet;
import java.util.Set;

/**
 * The versions one Cluster went through by this writer's writes alone, up to the one its last write made: each write
 * was on condition of the version before it, so nothing else changed the Cluster between them. A status computed from
 * one of them (their echoes not read yet) is written on condition of the last; one computed from any other version
 * (another writer's) on condition of that. Pure.
 */
@Pure
final class OwnVersions {
    /** The versions kept: more come only when writes outpace their echoes. */
    static final int KEPT = 16;

    private final Set<String> chain = new HashSet<>();
    private String last = "";

    /** The version to write a status computed from {@code basis} on condition of (empty: no condition). */
    String expected(String basis) {
        return !basis.isEmpty() && chain.contains(basis) && !last.isEmpty() ? last : basis;
    }

    /** A write on condition of {@code expected} made {@code version} (empty when the answer named none). */
    void wrote(String expected, String version) {
        last = version;
        if (version.isEmpty()) {
            chain.clear(); // nothing to chain from
            return;
        }
        if (!chain.contains(expected) || chain.size() >= KEPT) {
            chain.clear();
            if (!expected.isEmpty()) {
                chain.add(expected);
            }
        }
        chain.add(version);
    }
}
