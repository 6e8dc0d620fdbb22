package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code watch} as the docs run it ({@code watch default/delta}), in its own process against a real broker: it follows
 * a cluster whose changes are published after it started, as a running aggregator publishes them, shows each one in
 * order as it comes, and a SIGTERM stops it cleanly with exit status 0.
 */
class WatchJarIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TRANSITIONS = "cluster-transitions";

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Test
    void followsAClusterAsItChangesAndStopsCleanlyOnSigterm() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            // As the aggregator creates it; watch never creates the feed it reads.
            admin.createTopics(List.of(new NewTopic(TRANSITIONS, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (JarProcess watch = JarProcess.start(Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers()), "watch", "default/delta");
                ClusterStory story = new ClusterStory(kafka.bootstrapServers(), TRANSITIONS)) {
            // Caught up with an empty feed: it says so, and follows from there.
            watch.awaitOut(DEADLINE, out -> out.contains("default/delta: waiting for its first status on the feed"),
                    "watch showing that it follows the feed");

            List<String> stages = List.of(ClusterStory.delta(0, 0, false), ClusterStory.delta(1, 0, false), ClusterStory.delta(1, 1, false));
            List<List<String>> expected = new ArrayList<>();
            for (String stage : stages) {
                StatusChange change = story.publish(stage, Instant.now());
                Condition ready = change.after().orElseThrow().status().condition(ConditionType.READY).orElseThrow();
                assertEquals(ConditionStatus.FALSE, ready.status(), "every stage but the last keeps the watch waiting");
                StatusChange.Progress progress = change.progress();
                String readyLine = "  Ready                   False  " + ready.reason() + ": " + ready.message();
                expected.add(List.of(
                        "default/delta  generation 1, observed 1",
                        "  control plane " + bar(progress.controlPlaneReady(), progress.controlPlaneDesired()),
                        "  workers       " + bar(progress.workersReady(), progress.workersDesired()),
                        readyLine));
                // Ready is the view's last line: once it is there, the view is whole.
                int shown = expected.size();
                watch.awaitOut(DEADLINE, out -> views(out).size() > shown && views(out).get(shown).contains(readyLine),
                        "the view of change " + shown + " (" + readyLine.strip() + ")");
            }

            int exit = watch.stop();
            List<List<String>> views = views(watch.out());
            assertEquals(List.of("default/delta: waiting for its first status on the feed"), views.get(0), watch.out().toString());
            assertEquals(expected.size() + 1, views.size(), "one view per change, each once: " + watch.out());
            for (int i = 0; i < expected.size(); i++) {
                List<String> view = views.get(i + 1);
                for (String line : expected.get(i)) {
                    assertTrue(view.contains(line), "change " + (i + 1) + " shows \"" + line + "\": " + view);
                }
            }
            assertEquals(0, exit, "a SIGTERM'd watch stops cleanly; standard error:\n" + watch.err());
            assertEquals("default/delta: stopped before Ready was True", watch.out().get(watch.out().size() - 1), watch.out().toString());
        }
    }

    /** A progress bar as watch draws it, 24 wide. */
    private static String bar(int ready, int desired) {
        int filled = desired == 0 ? 0 : ready * 24 / desired;
        return "[" + "#".repeat(filled) + "-".repeat(24 - filled) + "] " + ready + "/" + desired;
    }

    /** Watch's views, as it appends them when standard output is not a terminal; without the line it ends with. */
    private static List<List<String>> views(List<String> out) {
        return JarProcess.blocks(out.stream().filter(line -> !line.startsWith("default/delta: stopped")).toList());
    }
}
