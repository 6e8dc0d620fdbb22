package io.statusaggregator.aggregation;

import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.kubernetes.FieldManagers;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether this instance writes a Cluster's status or steps aside for another writer that keeps setting the fields it
 * owns (status-rules.md, "Who writes the status"): two writers of one field must never take turns. Pure: statuses,
 * the status writers the API server names and instants ({@code System.nanoTime()} values) in, a decision out.
 *
 * <p>A <em>foreign write</em> is a status the Cluster shows whose owned fields (the five conditions' type, status,
 * reason, message and severity, in their order; {@code observedGeneration}; the failure pair) differ from those this
 * instance last wrote, seen when no write of its own is awaited (so neither its echo nor a state read before it). One
 * may be a person's {@code kubectl edit --subresource=status}: it is put back. A second within the window means
 * another writer keeps writing: this instance steps aside for that Cluster, for as long as it aggregates it.
 *
 * <p>Where the API server names the managers of the status conditions ({@code metadata.managedFields}, entries of the
 * {@code status} subresource), a manager other than this aggregator's that is not kubectl (a person) is a controller
 * writing them: stepped aside for at once, so that a restarted replica does not write again.
 */
@Pure
final class StatusOwnership {
    /** Who wrote a Cluster's status when no manager is named (the Fabric8 mock API server keeps no managedFields). */
    static final String UNNAMED = "";
    private static final long NONE = Long.MIN_VALUE;

    /** How long after a foreign write a second one means another writer keeps writing, by default. */
    static final Duration WINDOW = Duration.ofMinutes(10);

    private final WantedWriter wanted;
    private final long windowNanos;
    /** What each Cluster's status writes came to, while this instance aggregates it. */
    private final Map<ObjectKey, Writes> byCluster = new HashMap<>();
    private int steppedAside;

    StatusOwnership(WantedWriter wanted, Duration window) {
        this.wanted = wanted;
        this.windowNanos = window.toNanos();
    }

    /**
     * Whether this instance writes {@code verdict} to {@code eksa}, which {@code cluster} holds; if not,
     * {@code cluster} is computed against its own verdict from now on (not the Cluster's status), and a step aside
     * decided now goes to {@code actions}. Asked when no write of this instance's to it is awaited.
     */
    boolean writes(TrackedCluster cluster, EksaCluster eksa, ClusterStatus verdict, long now, List<Action> actions) {
        if (wanted == WantedWriter.AUTO) {
            Writes writes = byCluster.computeIfAbsent(eksa.key(), k -> new Writes());
            Decision decision = beforeWrite(writes, eksa.status(), eksa.resourceVersion(), writersOf(eksa), verdict,
                    now);
            if (decision instanceof Decision.Write) {
                return true;
            }
            Decision.StepAside aside = (Decision.StepAside) decision;
            if (aside.first()) {
                steppedAside++;
                actions.add(new Action.StepAside(new SteppedAside(eksa.key(), aside.writer(), eksa.status(), verdict)));
            }
        }
        cluster.written(verdict, null);
        return false;
    }

    /** This instance wrote a status to {@code cluster}, of which the API server kept {@code kept} (null: none). */
    void wrote(ObjectKey cluster, ClusterStatus kept) {
        if (kept != null && wanted == WantedWriter.AUTO) {
            byCluster.computeIfAbsent(cluster, k -> new Writes()).wrote(kept);
        }
    }

    /** {@code cluster} is deleted, or no longer this instance's: its next owner, or a new Cluster, starts anew. */
    void left(ObjectKey cluster) {
        Writes writes = byCluster.remove(cluster);
        if (writes != null && writes.steppedAsideFor != null) {
            steppedAside--;
        }
    }

    /** The Clusters this instance aggregates and stepped aside from. */
    int steppedAside() {
        return steppedAside;
    }

    /** The managers of the status conditions ingest found in the Cluster's {@code metadata.managedFields}. */
    static Set<String> writersOf(EksaCluster eksa) {
        String named = eksa.annotations().getOrDefault(ObjectReduction.STATUS_WRITERS, "");
        Set<String> writers = new TreeSet<>();
        for (String writer : named.split(",")) {
            if (!writer.isBlank()) {
                writers.add(writer.strip());
            }
        }
        return writers;
    }

    /** What one Cluster's status writes came to; kept on its {@link TrackedCluster}, on the aggregation thread. */
    static final class Writes {
        /** The owned fields of the status this instance last wrote, as the API server kept it; null before. */
        private Owned lastWritten;
        private long lastForeign = NONE;
        /** The Cluster's version the status this instance last decided to write was computed from. */
        private String basis = "";
        /** The other writer this instance stepped aside for ({@link #UNNAMED} when not named); null while it writes. */
        private String steppedAsideFor;

        /** This instance wrote a status, of which the API server kept {@code kept}. */
        void wrote(ClusterStatus kept) {
            lastWritten = Owned.of(kept);
        }

        Optional<String> steppedAsideFor() {
            return Optional.ofNullable(steppedAsideFor);
        }
    }

    /** What a decision before a write comes to: write (or put back), or step aside for {@code writer}. */
    sealed interface Decision {
        record Write() implements Decision {
        }

        /** @param first whether this instance steps aside now, rather than stepped aside before */
        record StepAside(String writer, boolean first) implements Decision {
        }
    }

    private static final Decision WRITE = new Decision.Write();

    /**
     * This instance would write {@code verdict} over {@code shows}, the status the Cluster shows at {@code version}, no
     * write of its own awaited; {@code writers}: the managers of the Cluster's status conditions, where the API server
     * names them. Steps aside, or not, for good ({@link Writes#steppedAsideFor}). The Cluster still at the version its
     * last write was computed from is no foreign write: its echo has not come (a broker away, say).
     */
    Decision beforeWrite(Writes writes, ClusterStatus shows, String version, Set<String> writers, ClusterStatus verdict,
            long now) {
        if (writes.steppedAsideFor != null) {
            return new Decision.StepAside(writes.steppedAsideFor, false);
        }
        Owned shown = Owned.of(shows);
        if (shown.equals(Owned.of(verdict))) {
            return write(writes, version); // they agree on the fields both write: nothing to take turns on
        }
        Set<String> others = new TreeSet<>(writers);
        others.removeAll(FieldManagers.THIS_APPLICATION);
        Set<String> controllers = new TreeSet<>(others);
        controllers.removeIf(FieldManagers::person);
        if (!controllers.isEmpty()) {
            return stepAside(writes, String.join(", ", controllers));
        }
        boolean stale = !version.isEmpty() && version.equals(writes.basis); // its echo not come yet
        if (writes.lastWritten == null || shown.equals(writes.lastWritten) || stale) {
            return write(writes, version); // nothing written yet to tell a foreign write by, or no foreign write
        }
        if (writes.lastForeign != NONE && now - writes.lastForeign <= windowNanos) {
            return stepAside(writes, String.join(", ", others));
        }
        writes.lastForeign = now;
        return write(writes, version); // once: put back
    }

    private static Decision write(Writes writes, String version) {
        writes.basis = version;
        return WRITE;
    }

    private static Decision stepAside(Writes writes, String writer) {
        writes.steppedAsideFor = writer;
        return new Decision.StepAside(writer, true);
    }

    /** The fields both this aggregator and EKS-A's controller write; a condition's time is left out. */
    record Owned(long observedGeneration, Optional<ClusterStatus.Failure> failure, List<Condition> conditions) {
        static Owned of(ClusterStatus status) {
            List<Condition> conditions = status.conditions().stream()
                    .filter(c -> c.type() != null)
                    .map(c -> new Condition(c.type(), c.status(), c.reason(), c.message(), c.severity(), Instant.EPOCH))
                    .toList();
            return new Owned(status.observedGeneration(), status.failure(), conditions);
        }
    }
}
