package io.statusaggregator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.quarkus.arc.Unremovable;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.watch.ClusterWatch;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ObjectKey;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.Config;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Dependent
@Unremovable
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        header = "Follow one cluster until it is Ready.",
        description = {
            "Shows one cluster coming up or upgrading, from the transitions feed: progress of the control plane "
                    + "and the workers, and each condition with its reason. Waits until Ready (or --until "
                    + "CONDITION) is True at the Cluster's generation.",
            "",
            "Reads kafka.bootstrap.servers; without it, the broker of an embedded default running on this "
                    + "machine.",
            "",
            "Exit status: 0 when the condition is True, or when stopped by SIGTERM (Ctrl-C: 130); 1 on a failure "
                    + "reason (or the Cluster deleted), 2 on bad arguments or an unreachable broker, 3 on --timeout."
        })
public class WatchCommand implements Callable<Integer> {
    static final int BAD_USE = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(paramLabel = "NAMESPACE/NAME", description = "The EKS-A Cluster.")
    String cluster;

    @Option(
            names = "--until",
            defaultValue = "Ready",
            paramLabel = "CONDITION",
            description = "The condition to wait for: ControlPlaneInitialized, ControlPlaneReady, WorkersReady,"
                    + " DefaultCNIConfigured or Ready. Default: ${DEFAULT-VALUE}.")
    String until;

    @Option(names = "--timeout", defaultValue = "30m", paramLabel = "DURATION",
            description = "How long to wait, like 90s, 10m or 1h. Default: ${DEFAULT-VALUE}.")
    String timeout;

    @Inject
    AggregatorConfig config;

    @Inject
    Config rawConfig;

    @Override
    public Integer call() {
        Optional<String> problem = ObjectKey.problemOf(cluster);
        if (problem.isPresent()) {
            System.err.println("error: the cluster is NAMESPACE/NAME: " + problem.get());
            return BAD_USE;
        }
        if (ConditionType.of(until).isEmpty()) {
            System.err.println("error: --until takes one of "
                    + Arrays.stream(ConditionType.values())
                            .map(ConditionType::wireName)
                            .collect(Collectors.joining(", "))
                    + ", got \"" + until + "\"");
            return BAD_USE;
        }
        Optional<Duration> limit = DurationText.parse(timeout).filter(d -> !d.isNegative());
        if (limit.isEmpty()) {
            System.err.println("error: --timeout takes a duration like 90s, 10m or 1h, got \"" + timeout + "\"");
            return BAD_USE;
        }
        Map<String, Object> kafka = KafkaSettings.orEmbedded(
                KafkaSettings.from(rawConfig),
                Path.of(config.embedded().kubeconfig()).getParent());
        Optional<String> noKafka = KafkaSettings.feedReaderProblem(kafka);
        if (noKafka.isPresent()) {
            System.err.println("error: " + noKafka.get());
            return BAD_USE;
        }
        AtomicBoolean stopRequested = new AtomicBoolean();
        StopSignal.onSigterm(() -> stopRequested.set(true));
        return watch(
                kafka,
                config.topics().transitions(),
                cluster,
                until,
                limit.get(),
                System.out,
                System.console() != null,
                () -> stopRequested.get() || StopSignal.jvmStopping());
    }

    /**
     * Reads the whole feed (what happened so far, shown once caught up), then follows it live.
     *
     * @param redraw        redraw the view in place (a terminal), else print each new view after the last
     * @param stopRequested whether to stop now (SIGTERM, or the JVM stopping): looked at after every poll, so within
     * 200 ms
     */
    static int watch(
            Map<String, Object> kafka,
            String topic,
            String cluster,
            String until,
            Duration timeout,
            PrintStream out,
            boolean redraw,
            BooleanSupplier stopRequested) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // a watch never creates the feed it reads
        long deadline = System.nanoTime() + timeout.toNanos();
        ClusterWatch watch = new ClusterWatch(cluster, until);
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions;
            try {
                partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
            } catch (KafkaException e) {
                System.err.println("error: cannot read topic " + topic + " from Kafka at "
                        + kafka.get("bootstrap.servers") + ": " + e.getMessage());
                return BAD_USE;
            }
            if (partitions.isEmpty()) {
                System.err.println("error: no topic " + topic + " on Kafka at " + kafka.get("bootstrap.servers")
                        + ": is the aggregator running against this broker?");
                return BAD_USE;
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> caughtUpAt = consumer.endOffsets(partitions);
            boolean caughtUp = false;
            String shown = null;
            while (true) {
                boolean changed = false;
                try {
                    for (ConsumerRecord<String, CloudEvent> record : consumer.poll(Duration.ofMillis(200))) {
                        changed |= accept(watch, record);
                    }
                } catch (RecordDeserializationException e) {
                    // Not a CloudEvent (a poison record): skipped, the feed goes on.
                    consumer.seek(e.topicPartition(), e.offset() + 1);
                }
                if (!caughtUp) {
                    caughtUp = partitions.stream().allMatch(p -> consumer.position(p) >= caughtUpAt.get(p));
                }
                if (caughtUp && (changed || shown == null)) {
                    String view = watch.render();
                    if (!view.equals(shown)) {
                        out.print(redraw ? "\033[H\033[2J" + view : (shown == null ? "" : "\n") + view);
                        out.flush();
                        shown = view;
                    }
                    Optional<ClusterWatch.Outcome> outcome = watch.outcome();
                    if (outcome.isPresent()) {
                        out.println(outcome.get() == ClusterWatch.Outcome.REACHED ? cluster + ": " + until + " is True"
                                : cluster + ": failed");
                        return outcome.get().exitCode();
                    }
                }
                if (stopRequested.getAsBoolean()) {
                    // Asked to stop, not failed nor timed out: a clean stop, 0; the line says the wait did not end.
                    out.println(cluster + ": stopped before " + until + " was True");
                    return 0;
                }
                if (System.nanoTime() > deadline) {
                    out.println(cluster + ": timed out after " + DurationText.format(timeout) + " waiting for " + until
                            + (watch.seen() ? "" : " (no event of this cluster on the feed)"));
                    return ClusterWatch.Outcome.TIMED_OUT.exitCode();
                }
            }
        }
    }

    /** An event that does not decode is not this watch's to judge: it is skipped. */
    private static boolean accept(ClusterWatch watch, ConsumerRecord<String, CloudEvent> record) {
        if (record.value() == null || record.value().getData() == null) {
            return false;
        }
        try {
            return watch.accept(
                    record.value().getSubject(),
                    record.value().getType(),
                    JSON.readTree(record.value().getData().toBytes()));
        } catch (IOException e) {
            return false;
        }
    }
}
