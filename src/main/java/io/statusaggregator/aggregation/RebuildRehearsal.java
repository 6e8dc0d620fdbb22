package io.statusaggregator.aggregation;

import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.versions.Compatibility;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.jboss.logging.Logger;

/**
 * The rebuild rehearsed before an instance joins its group, while the group's other members serve the partitions.
 * A fresh JVM spends most of its first rebuild compiling the code that reads records and computes clusters, and the
 * partitions it takes over go unserved that long (docs/how-it-works.md, "A restart"). The rehearsal reads the
 * object-state topic once through that same code, with a consumer of its own outside the group and a book it then
 * drops, so that the rebuild after joining runs compiled code. Nothing it decides is carried out: no status written,
 * nothing published, no dead letter, no offset committed. One partition at a time, each into a book of its own: it
 * holds one partition's clusters at most, so that a replica need not be sized to hold every partition for its
 * rehearsal. Cut short at {@code longest}, when the instance stops, or at an
 * error (the instance then joins as it would have).
 */
public final class RebuildRehearsal {
    private static final Logger LOG = Logger.getLogger(RebuildRehearsal.class);
    private static final Duration POLL = Duration.ofMillis(100);

    /**
     * What a rehearsal did: the records it read and clusters it computed, in how long; whether it read every partition.
     */
    record Rehearsed(long records, long computations, int partitions, Duration took, boolean complete) {}

    private final Map<String, Object> consumerSettings;
    private final String topic;
    private final Duration longest;
    /** Makes a book as the aggregator's, for one partition. */
    private final Supplier<ClusterBook> books;
    private final Supplier<Compatibility> compatibility;
    private final Supplier<ManagementCluster> management;
    private final Clock clock;
    private final String group;
    private final BooleanSupplier othersServe;

    /**
     * @param consumerSettings the aggregation consumer's: the rehearsal's consumer is made from them, outside the group
     * @param othersServe whether the group's other members serve its partitions: asked when the rehearsal would start
     */
    RebuildRehearsal(
            Map<String, Object> consumerSettings,
            String topic,
            Duration longest,
            Supplier<ClusterBook> books,
            Supplier<Compatibility> compatibility,
            Supplier<ManagementCluster> management,
            Clock clock,
            BooleanSupplier othersServe) {
        this.group = String.valueOf(consumerSettings.get(ConsumerConfig.GROUP_ID_CONFIG));
        this.othersServe = othersServe;
        this.consumerSettings = outsideTheGroup(consumerSettings);
        this.topic = topic;
        this.longest = longest;
        this.books = books;
        this.compatibility = compatibility;
        this.management = management;
        this.clock = clock;
    }

    /**
     * The aggregation consumer's settings for a consumer that reads partitions it assigns itself, under a client id of
     * its own.
     */
    static Map<String, Object> outsideTheGroup(Map<String, Object> consumerSettings) {
        Map<String, Object> settings = new HashMap<>(consumerSettings);
        settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        settings.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        settings.remove(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        settings.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        settings.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        Object clientId = consumerSettings.get(ConsumerConfig.CLIENT_ID_CONFIG);
        if (clientId != null) {
            settings.put(
                    ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-rehearsal"); // its metrics apart from the real one's
        }
        return settings;
    }

    /**
     * Before the group is joined: rehearses if the group's other members serve its partitions meanwhile (when none
     * does, the partitions wait for this instance, and a rehearsal would only keep them waiting longer).
     */
    void beforeJoining(BooleanSupplier stopped, java.util.function.Consumer<String> progress) {
        if (!othersServe.getAsBoolean()) {
            LOG.debugf("consumer group %s has no members: joining it without a rehearsal", group);
            return;
        }
        progress.accept("rehearsing the rebuild before joining the group");
        LOG.infof(
                "consumer group %s has members serving topic %s: rehearsing the rebuild before joining it (%d s at"
                        + " most)",
                group, topic, longest.toSeconds());
        Rehearsed done = run(stopped);
        progress.accept("rehearsed the rebuild; joining the group");
        LOG.infof(
                "rehearsed the rebuild in %.1f s: %,d records of %d partitions%s, %,d computations; joining consumer"
                        + " group %s",
                done.took().toMillis() / 1e3,
                done.records(),
                done.partitions(),
                done.complete() ? "" : " (cut short)",
                done.computations(),
                group);
    }

    /**
     * Rehearses, {@code longest} at most; stops sooner once {@code stopped} says so. Never throws: an error ends it.
     */
    Rehearsed run(BooleanSupplier stopped) {
        long start = System.nanoTime();
        long deadline = start + longest.toNanos();
        long records = 0;
        long computations = 0;
        int partitions = 0;
        boolean complete = false;
        try (Consumer<byte[], ByteBuffer> consumer = new KafkaConsumer<>(consumerSettings)) {
            List<PartitionInfo> all = consumer.partitionsFor(topic, longest);
            rehearsal:
            for (PartitionInfo info : all) {
                TopicPartition partition = new TopicPartition(topic, info.partition());
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long end = consumer.endOffsets(List.of(partition), left(deadline)).getOrDefault(partition, 0L);
                ClusterBook book = books.get(); // dropped with the partition
                for (Action asked : book.on(new BookEvent.Assigned(List.of(info.partition()), all.size()))) {
                    if (asked instanceof Action.ReadStatuses read) { // nothing published: no status topic read
                        book.on(new BookEvent.StatusesRead(read.assignment(), Map.of()));
                    }
                }
                while (true) {
                    if (stopped.getAsBoolean() || System.nanoTime() >= deadline) {
                        break rehearsal;
                    }
                    if (consumer.position(partition, left(deadline)) >= end) {
                        break;
                    }
                    for (ConsumerRecord<byte[], ByteBuffer> fetched : consumer.poll(POLL)) {
                        // As the aggregator treats a partition it rebuilds: the record copied out of its response.
                        book.on(new BookEvent.RecordRead(ObjectStateConsumer.source(fetched, true), System.nanoTime()));
                        records++;
                    }
                }
                book.on(new BookEvent.Rebuilt(info.partition())); // its clusters computed, as a rebuild's are
                book.on(new BookEvent.TimePassed(
                        System.nanoTime(), 0, compatibility.get(), management.get(), clock.instant()));
                computations += book.computations();
                partitions++;
            }
            complete = partitions == all.size();
        } catch (RuntimeException e) {
            LOG.infof("the rebuild's rehearsal stopped: %s", e.toString());
        }
        return new Rehearsed(records, computations, partitions, Duration.ofNanos(System.nanoTime() - start), complete);
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Whether the consumer group {@code group} has members now (then they serve the partitions while a new member
     * rehearses), asked on a thread of its own so that the answer is ready by the time the aggregator joins. False
     * when the group is empty or unknown, and when the brokers cannot tell within {@code timeout}: a lone instance
     * joins at once.
     */
    public static CompletableFuture<Boolean> othersServe(Map<String, Object> kafka, String group, Duration timeout) {
        CompletableFuture<Boolean> served = new CompletableFuture<>();
        DaemonThreads.named("group-members")
                .newThread(() -> served.complete(hasMembers(kafka, group, timeout)))
                .start();
        return served;
    }

    private static boolean hasMembers(Map<String, Object> kafka, String group, Duration timeout) {
        Map<String, Object> settings = new HashMap<>(kafka);
        settings.keySet()
                .retainAll(AdminClientConfig.configNames()); // the consumer's own keys would each be warned about
        Admin admin = null;
        try {
            admin = Admin.create(settings);
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return !description.members().isEmpty();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                LOG.infof(
                        "could not tell whether consumer group %s has members (%s): joining it without a rehearsal",
                        group,
                        e.getCause() == null ? e.toString() : e.getCause().toString());
            }
            return false;
        } catch (TimeoutException | RuntimeException e) {
            LOG.infof(
                    "could not tell whether consumer group %s has members (%s): joining it without a rehearsal",
                    group, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (admin != null) {
                admin.close(Duration.ZERO); // its default close waits for the question it gave up on, a minute
            }
        }
    }
}
