package io.statusaggregator.bench;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.CoalescingWindow;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.ingest.CniObserver;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Figures 2 and 3, through the whole pipeline: the in-process API server (Fabric8's CRUD mock) and broker, ingest's
 * informers, aggregation and write-back as {@code run} wires them, with the application's default settings; and
 * figures 2 and 8 against packaged instances. The workload writes to the API server as CAPI's controllers would, each
 * change timed ({@link FleetOnApiServer}); the baselines run on the same API server and the same workload, one after
 * the other, never at the same time as the aggregator. A change that took over a second is logged with what happened
 * to its cluster meanwhile ({@link ClusterTimeline}).
 */
final class ApiServerFigures implements AutoCloseable {
    /**
     * @param behind clusters whose status was still not what their objects give when the run ended (the baseline's only)
     * @param writesPerChange status writes over the changes written (steps that change the status); NaN where not counted
     */
    record Freshness(double p50, double p99, double max, int measured, int unreflected, int undone, double changesPerSecond, int behind,
            double writesPerChange) {
        Freshness withWrites(long writes, long changes) {
            return new Freshness(p50, p99, max, measured, unreflected, undone, changesPerSecond, behind, (double) writes / changes);
        }
    }

    record Amplification(long changes, long events, long distinctStatuses, long writes, long baselineWrites) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Bench.Broker broker;
    private final long seed;
    private final FleetWorkload workload;
    private final Compatibility compatibility;
    private final StatusCheck check;
    private final FleetOnApiServer fleet;
    private EmbeddedKubernetes kubernetes;
    private Pipeline pipeline;
    private final String run;
    /** The notes of the churn under way, if any: what the slow changes' log shows. */
    private ClusterTimeline timeline;

    ApiServerFigures(Bench.Broker broker, long seed, int clusters, int machines, Compatibility compatibility) {
        this.broker = broker;
        this.seed = seed;
        this.workload = new FleetWorkload(seed + 1, clusters, Math.max(1, machines / clusters));
        this.compatibility = compatibility;
        this.check = new StatusCheck(compatibility, ManagementCluster.UNKNOWN);
        this.fleet = new FleetOnApiServer(workload, check);
        this.run = "api-" + seed;
    }

    /** The API server with the fleet in it; each figure starts what it measures on it. */
    void setUp() throws Exception {
        fleet.create();
        kubernetes = fleet.kubernetes();
    }

    private void startPipeline() throws Exception {
        long t = System.nanoTime();
        String topic = "object-states-" + run;
        Pipeline.Settings settings = new Pipeline.Settings(broker.kafka(), topic, "statuses-" + run, "transitions-" + run, "dead-letters-" + run, true, 6,
                (short) 1, "aggregator-" + run, true, new ObjectIngest.Settings(FleetWorkload.CAPI, List.of(), Duration.ofSeconds(30)),
                new Aggregator.Settings(topic, Duration.ofMillis(100), CoalescingWindow.DEFAULT_LONGEST, Duration.ofSeconds(10),
                        Duration.ofSeconds(30), FleetWorkload.CAPI),
                new StatusWriter.Settings(4, Duration.ofMillis(200), Duration.ofSeconds(30)),
                new CniObserver.Settings(FleetWorkload.CAPI, 500, Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10)),
                Optional.empty(), Optional.empty());
        pipeline = new Pipeline(settings, kubernetes.newClient(), compatibility, Clock.systemUTC());
        pipeline.start(Duration.ofMinutes(3));
        if (!Bench.await(180_000, () -> pipeline.aggregator().settled() && check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
            throw new IllegalStateException("the pipeline did not settle on right statuses within 3 minutes (seed " + seed + "): "
                    + pipeline.aggregator().progress() + "; " + check.mismatches(fleet.clusters(), Map.of()).stream().limit(2).toList());
        }
        fleet.expectShown();
        Bench.log("pipeline started and settled in %.1f s", (System.nanoTime() - t) / 1e9);
    }

    /**
     * The changes that took over a second, the first few of them named, and what happened to the first few clusters
     * they are of, from a second before the change was written until it was shown.
     */
    private void logSlowChanges(ChangeClock clock) {
        List<ChangeClock.Slow> slow = clock.slowChanges();
        if (slow.isEmpty()) {
            return;
        }
        Bench.log("%d changes took over a second: %s", slow.size(),
                String.join("; ", slow.subList(0, Math.min(5, slow.size())).stream().map(ChangeClock.Slow::text).toList()));
        ClusterTimeline notes = timeline;
        if (notes != null) {
            slow.stream().collect(java.util.stream.Collectors.toMap(ChangeClock.Slow::cluster, c -> c, (a, b) -> a, java.util.LinkedHashMap::new))
                    .values().stream().limit(3).forEach(change -> Bench.log("what happened to %s, from a second before its change was written:%s",
                            change.cluster(), notes.of(change.cluster(), change.writtenAt() - 1_000_000_000L, change.shownAt() + 300_000_000L)));
        }
    }

    private static Freshness freshness(ChangeClock clock, double rate, int undone, int behind) {
        List<Double> latencies = clock.latencies();
        return new Freshness(Bench.percentile(latencies, 50), Bench.percentile(latencies, 99),
                latencies.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN), latencies.size(), clock.waiting(), undone, rate, behind,
                Double.NaN);
    }

    /** Figure 2: the churn through the pipeline; a change is reflected when the Cluster shows its status. */
    Freshness aggregatorFreshness(int rate, int seconds) throws Exception {
        if (pipeline == null) {
            startPipeline();
        }
        ChangeClock clock = new ChangeClock(fleet.expectShown());
        KubernetesClient watcher = kubernetes.newClient();
        SharedIndexInformer<GenericKubernetesResource> shown = fleet.follow(watcher, clock);
        timeline = new ClusterTimeline();
        timeline.follow(broker.kafka(), "object-states-" + run, "statuses-" + run);
        fleet.noteIn(timeline);
        try {
            long writesBefore = pipeline.aggregator().writer().writes();
            long[] counts = new long[2];
            double achieved = fleet.churn(rate, seconds, workload::nextStep, clock, counts);
            Bench.await(15_000, () -> clock.waiting() == 0);
            Freshness result = freshness(clock, achieved, undone(clock), 0);
            logSlowChanges(clock);
            Bench.log("freshness, aggregator, where the time went: %s", clock.stages(timeline));
            if (!Bench.await(30_000, () -> pipeline.aggregator().settled())) {
                throw new IllegalStateException("the pipeline did not settle after the churn: " + pipeline.aggregator().progress());
            }
            check.verify("freshness, aggregator", seed, fleet.clusters(), Map.of());
            return result.withWrites(pipeline.aggregator().writer().writes() - writesBefore, counts[1]);
        } finally {
            shown.close();
            watcher.close();
            fleet.noteIn(null);
            timeline.close();
            timeline = null;
        }
    }

    /**
     * One churn of figure 2 as a replica runs it: @param changes its freshness; @param cpuSeconds the replica's CPU from
     * the churn's start until every change was shown ({@code seconds} later), and by thread; the collector's pauses
     * then, in milliseconds; its status write attempts by outcome meanwhile.
     */
    record LimitedFreshness(Freshness changes, double cpuSeconds, double seconds, String cpuByThread, double pauseMedian, double pause99,
            double pauseLongest, int pauses, Map<String, Long> statusWrites) {
    }

    /**
     * Figure 2 as a replica runs it: the pipeline stopped, one packaged instance started in its place, held to one CPU
     * with the Deployment's heap and collector ({@link LimitedPass#ONE_CPU}, {@link LimitedPass#DEPLOYMENT_JVM}, then
     * {@code jvmOptions}, and the settings {@code env}); once it has settled on right statuses, {@code churns} times the same churn, timed the same
     * way. The API server, the churn driver and the broker are not held: they may use both CPUs, the instance at most one.
     */
    List<LimitedFreshness> limitedFreshness(int rate, int seconds, int churns, List<String> jvmOptions, Map<String, String> env)
            throws Exception {
        stopPipeline();
        kubernetes.client().leases().inNamespace("default").withName(AggregatorInstances.LEASE).delete();
        Path dir = Files.createTempDirectory("bench-limited-freshness");
        Path kubeconfig = kubernetes.writeKubeconfig(dir.resolve("kubeconfig"));
        Path gcLog = dir.resolve("gc.log");
        List<String> options = new ArrayList<>(LimitedPass.DEPLOYMENT_JVM);
        options.add("-Xlog:gc:file=" + gcLog);
        options.addAll(jvmOptions);
        String bootstrap = String.valueOf(broker.kafka().get("bootstrap.servers"));
        long t = System.nanoTime();
        // The metrics (status writes by outcome) are read without a token: no review, which only requests would cost.
        Map<String, String> settings = new java.util.HashMap<>(Map.of("AGGREGATOR_ACCESS_REVIEW", "false"));
        settings.putAll(env);
        try (AggregatorInstances instances = new AggregatorInstances(kubeconfig, bootstrap, run + "-limited", settings,
                new AggregatorInstances.Launcher(LimitedPass.ONE_CPU, options))) {
            AggregatorInstances.Instance instance = instances.start();
            if (!Bench.await(300_000, 1_000, () -> instances.allReady() && check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
                throw new IllegalStateException("the instance at the Deployment's limits did not settle on right statuses within 5 minutes: "
                        + check.mismatches(fleet.clusters(), Map.of()).stream().limit(2).toList() + "\n" + instances.logs());
            }
            Bench.log("freshness at the Deployment's limits: the instance started and settled in %.1f s", (System.nanoTime() - t) / 1e9);
            List<LimitedFreshness> runs = new ArrayList<>();
            for (int i = 0; i < churns; i++) {
                runs.add(limitedChurn(rate, seconds, instance, instances, gcLog));
                Bench.log("freshness at the Deployment's limits, churn %d: %s", i + 1, runs.get(i));
            }
            return runs;
        } finally {
            Files.deleteIfExists(gcLog);
            Files.deleteIfExists(kubeconfig);
            Files.deleteIfExists(dir);
        }
    }

    private LimitedFreshness limitedChurn(int rate, int seconds, AggregatorInstances.Instance instance, AggregatorInstances instances,
            Path gcLog) throws Exception {
        ChangeClock clock = new ChangeClock(fleet.expectShown());
        timeline = new ClusterTimeline();
        timeline.follow(broker.kafka(), "object-states-" + run + "-limited", "statuses-" + run + "-limited");
        fleet.noteIn(timeline);
        try (KubernetesClient watcher = kubernetes.newClient(); SharedIndexInformer<GenericKubernetesResource> shown = fleet.follow(watcher, clock)) {
            String pid = String.valueOf(instance.process().pid());
            int pausesBefore = LimitedPass.pauses(gcLog).size();
            Map<String, Long> ticksBefore = Bench.cpuTicksByThread(pid);
            Duration cpuBefore = instance.process().toHandle().info().totalCpuDuration().orElseThrow();
            Map<String, Long> writesBefore = instances.statusWrites(instance);
            long churnStarted = System.nanoTime();
            double achieved = fleet.churn(rate, seconds, workload::nextStep, clock, new long[2]);
            Bench.await(15_000, () -> clock.waiting() == 0);
            Duration cpu = instance.process().toHandle().info().totalCpuDuration().orElseThrow().minus(cpuBefore);
            double elapsed = (System.nanoTime() - churnStarted) / 1e9;
            String threads = Bench.cpuByThread(Bench.ticksSince(ticksBefore, Bench.cpuTicksByThread(pid)));
            Map<String, Long> writes = new java.util.TreeMap<>(instances.statusWrites(instance));
            writes.replaceAll((outcome, count) -> count - writesBefore.getOrDefault(outcome, 0L));
            List<Double> pauses = LimitedPass.pauses(gcLog);
            pauses = pauses.subList(Math.min(pausesBefore, pauses.size()), pauses.size());
            Freshness changes = freshness(clock, achieved, undone(clock), 0);
            logSlowChanges(clock);
            if (!Bench.await(60_000, 1_000, () -> check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
                List<String> wrong = check.mismatches(fleet.clusters(), Map.of());
                throw new IllegalStateException("after the churn the instance at the Deployment's limits did not settle on right statuses: "
                        + wrong.size() + " clusters, " + wrong.stream().limit(2).toList() + "\n"
                        + whereStands(wrong.get(0).substring(0, wrong.get(0).indexOf(':')), run + "-limited") + "\n" + instances.logs());
            }
            check.verify("freshness at the Deployment's limits", seed, fleet.clusters(), Map.of());
            return new LimitedFreshness(changes, cpu.toNanos() / 1e9, elapsed, threads, Bench.percentile(pauses, 50),
                    Bench.percentile(pauses, 99), pauses.stream().mapToDouble(Double::doubleValue).max().orElse(0), pauses.size(), writes);
        } finally {
            fleet.noteIn(null);
            timeline.close();
            timeline = null;
        }
    }

    /**
     * For a failure's message: where each object of {@code cluster} stands, its resourceVersion on the API server and
     * in its latest record on the object-state topic of run {@code topics}; and the cluster's status on the status topic.
     */
    private String whereStands(String cluster, String topics) {
        Map<String, String> states = io.statusaggregator.topics.CompactedTopic.latest(broker.kafka(), "object-states-" + topics,
                Duration.ofMinutes(1)).orElse(Map.of());
        StringBuilder text = new StringBuilder(cluster + "'s objects, resourceVersion on the API server / on the object-state topic:");
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (GenericKubernetesResource r
                    : kubernetes.client().genericKubernetesResources(FleetWorkload.resource(kind)).inAnyNamespace()
                    .list().getItems()) {
                JsonNode object = JSON.valueToTree(r);
                String owner = kind == ObjectKind.EKSA_CLUSTER || kind == ObjectKind.CAPI_CLUSTER ? r.getMetadata().getName()
                        : object.path("metadata").path("labels").path(ObjectDecoder.CLUSTER_NAME_LABEL).asText();
                if (!cluster.equals(owner)) {
                    continue;
                }
                String key = new io.statusaggregator.topics.ObjectStateKey(cluster, kind,
                        new io.statusaggregator.model.ObjectKey(r.getMetadata().getNamespace(), r.getMetadata().getName())).encode();
                String onTopic = "none";
                if (states.get(key) != null) {
                    try {
                        onTopic = JSON.readTree(states.get(key)).path("metadata").path("resourceVersion").asText();
                    } catch (java.io.IOException e) {
                        onTopic = "unreadable";
                    }
                }
                text.append(String.format("%n  %s %s: %s / %s", kind.kind(), r.getMetadata().getName(), r.getMetadata().getResourceVersion(), onTopic));
            }
        }
        io.statusaggregator.topics.StatusFeed.latest(broker.kafka(), "statuses-" + topics, Duration.ofMinutes(1))
                .ifPresent(published -> published.forEach((key, status) -> {
                    if (key.endsWith("/" + cluster)) {
                        text.append(String.format("%n  on the status topic: %s", StatusCheck.signature(status)));
                    }
                }));
        return text.toString();
    }

    /** Takes out of {@code clock} the changes a later change of their cluster undid; returns how many. */
    private int undone(ChangeClock clock) {
        Map<String, String> shownNow = new HashMap<>();
        fleet.clusters().forEach((name, state) -> state.cluster().ifPresent(c -> shownNow.put(name, StatusCheck.signature(c.status()))));
        return clock.undone(shownNow);
    }

    /**
     * @param changes     each change written after the kill, from its write to the status that reflects it
     * @param allShownMillis from the kill until the last of them was shown
     */
    record Failover(Freshness changes, double allShownMillis, String killed) {
    }

    /**
     * Figure 8: two packaged instances on this fleet (ingest under the Lease), settled; the Lease holder is killed
     * with SIGKILL, and at once a change is written to each cluster at {@code rate} per second. Its partitions wait
     * for the group's session timeout and ingest for the Lease to expire: what this measures. Through the steady minute
     * before the kill, {@code backgroundRate} changes per second (0: none).
     */
    Failover failover(String label, Map<String, String> env, int rate, int backgroundRate) throws Exception {
        stopPipeline();
        kubernetes.client().leases().inNamespace("default").withName(AggregatorInstances.LEASE).delete();
        Path kubeconfig = kubernetes.writeKubeconfig(Files.createTempDirectory("bench-failover").resolve("kubeconfig"));
        String bootstrap = String.valueOf(broker.kafka().get("bootstrap.servers"));
        long t = System.nanoTime();
        try (AggregatorInstances instances = new AggregatorInstances(kubeconfig, bootstrap, run + "-" + label, env)) {
            // One after the other, as a rollout starts them: the first ingests the whole fleet before the second joins.
            instances.start();
            if (!Bench.await(240_000, 1_000, () -> instances.allReady() && instances.leaseHolder(kubernetes.client()).isPresent()
                    && check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
                throw new IllegalStateException("the first instance did not settle on right statuses within 4 minutes: "
                        + check.mismatches(fleet.clusters(), Map.of()).stream().limit(2).toList() + "\n" + instances.logs());
            }
            instances.start();
            if (!Bench.await(120_000, 1_000, instances::allReady)) {
                throw new IllegalStateException("the second instance was not ready within 2 minutes\n" + instances.logs());
            }
            Bench.log("failover (%s): two instances started and settled in %.1f s", label, (System.nanoTime() - t) / 1e9);
            // In steady state: a standby that started within ObjectIngest's RECENT (a minute) sends every object at once
            // when it takes over, as a fresh start does; one running longer sends what changed recently first.
            long secondStarted = System.nanoTime() - t;
            if (backgroundRate > 0) {
                // A fleet is never still: a trickle of changes through the steady minute, as a running pipeline sees.
                ChangeClock background = new ChangeClock(fleet.expectShown());
                try (KubernetesClient watcher = kubernetes.newClient(); SharedIndexInformer<GenericKubernetesResource> shown = fleet.follow(watcher, background)) {
                    fleet.churn(backgroundRate, 60, workload::nextStep, background, new long[2]);
                    if (!Bench.await(60_000, () -> background.waiting() == 0)) {
                        throw new IllegalStateException(background.waiting() + " changes of the steady minute not shown within a minute");
                    }
                }
            }
            Bench.await(120_000, () -> System.nanoTime() - t > secondStarted + TimeUnit.SECONDS.toNanos(65));
            ChangeClock clock = new ChangeClock(fleet.expectShown());
            try (KubernetesClient watcher = kubernetes.newClient(); SharedIndexInformer<GenericKubernetesResource> shown = fleet.follow(watcher, clock)) {
                AggregatorInstances.Instance holder = instances.leaseHolder(kubernetes.client()).orElseThrow();
                long killedAt = System.nanoTime();
                long killedAtMillis = System.currentTimeMillis();
                instances.kill(holder);
                double achieved = fleet.churn(rate, (double) workload.clusters().size() / rate, workload::nextStep, clock, new long[2]);
                if (!Bench.await(180_000, () -> clock.waiting() == 0)) {
                    Bench.log("failover (%s): %d changes not shown 3 minutes after the kill", label, clock.waiting());
                }
                Freshness changes = freshness(clock, achieved, undone(clock), 0);
                Bench.log("failover (%s): changes by the second written after the kill:%n%s", label, clock.timeline(killedAt));
                Bench.log("failover (%s): the survivor after the kill, every change shown at +%.1f s:%n%s", label,
                        (clock.lastReflectedAt() - killedAt) / 1e9, instances.timeline(instances.survivor(holder).orElseThrow(), killedAtMillis));
                if (!Bench.await(60_000, 1_000, () -> check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
                    throw new IllegalStateException("after the kill the survivor did not settle on right statuses: "
                            + check.mismatches(fleet.clusters(), Map.of()).stream().limit(2).toList() + "\n" + instances.logs());
                }
                return new Failover(changes, (clock.lastReflectedAt() - killedAt) / 1e6, holder.name());
            }
        }
    }

    /**
     * Figure 2's limit: the same churn, the pipeline stopped, a controller that computes and writes the status on each
     * informer event ({@link DirectController}), timed the same way.
     */
    Freshness directFreshness(int rate, int seconds) throws Exception {
        stopPipeline();
        try (DirectController direct = new DirectController(kubernetes, check)) {
            direct.start();
            if (!Bench.await(60_000, 500, () -> check.mismatches(fleet.clusters(), Map.of()).isEmpty())) {
                throw new IllegalStateException("the direct controller did not settle on right statuses within a minute (seed " + seed + ")");
            }
            ChangeClock clock = new ChangeClock(fleet.expectShown());
            KubernetesClient watcher = kubernetes.newClient();
            SharedIndexInformer<GenericKubernetesResource> shown = fleet.follow(watcher, clock);
            try {
                long writesBefore = direct.writes();
                long[] counts = new long[2];
                double achieved = fleet.churn(rate, seconds, workload::nextStep, clock, counts);
                Bench.await(15_000, () -> clock.waiting() == 0);
                Freshness result = freshness(clock, achieved, undone(clock), 0);
                Bench.await(30_000, 500, () -> check.mismatches(fleet.clusters(), Map.of()).isEmpty());
                check.verify("freshness, direct controller", seed, fleet.clusters(), Map.of());
                return result.withWrites(direct.writes() - writesBefore, counts[1]);
            } finally {
                shown.close();
                watcher.close();
            }
        }
    }

    /** Figure 2's baseline: the same churn, the pipeline stopped, the poller re-reading not-Ready clusters every 10 s. */
    Freshness pollerFreshness(int rate, int seconds) throws Exception {
        stopPipeline();
        ChangeClock clock = new ChangeClock(fleet.expectShown());
        try (TenSecondPoller poller = new TenSecondPoller(kubernetes, check, clock)) {
            poller.start();
            double achieved = fleet.churn(rate, seconds, workload::nextStep, clock, new long[2]);
            // The poller re-reads each not-Ready cluster every 10 s: at fleet scale it is still catching up when the churn
            // stops. Being behind is its figure (a slow answer, not a wrong one); a status that is wrong otherwise fails.
            Bench.await(60_000, () -> clock.waiting() == 0);
            poller.close();
            Map<String, ClusterState> clusters = fleet.clusters();
            List<String> wrong = check.mismatches(clusters, poller.statuses());
            if (wrong.size() == 1 && wrong.get(0).equals("no cluster to check")) {
                check.verify("freshness, 10 s poller", seed, clusters, poller.statuses());
            }
            return freshness(clock, achieved, 0, wrong.size());
        }
    }

    private void stopPipeline() {
        if (pipeline != null) {
            pipeline.close();
            pipeline = null;
        }
    }

    /**
     * Figure 3: every cluster through one rolling upgrade (those in one finish it), steps interleaved at random at
     * {@code rate}; the aggregator's writes, and those of the baseline that writes on every event, counted over it.
     */
    Amplification rollingUpgrade(int rate) throws Exception {
        if (pipeline == null) {
            startPipeline();
        }
        java.util.Random random = new java.util.Random(seed + 3);
        List<FleetWorkload.Cluster> rolling = new ArrayList<>(workload.clusters());
        Map<FleetWorkload.Cluster, Boolean> started = new HashMap<>();
        long writesBefore = pipeline.aggregator().writer().writes();
        String topic = "object-states-" + run;
        try (EveryEventWriter baseline = new EveryEventWriter(broker, topic, check)) {
            baseline.start();
            long[] counts = new long[2];
            fleet.churn(rate, 3600, () -> {
                while (!rolling.isEmpty()) {
                    int i = random.nextInt(rolling.size());
                    FleetWorkload.Cluster c = rolling.get(i);
                    if (started.putIfAbsent(c, true) == null && c.rollout < 0) {
                        return c.step();
                    }
                    FleetWorkload.Step step = workload.stepOfRollout(c);
                    if (step != null) {
                        return step;
                    }
                    rolling.set(i, rolling.get(rolling.size() - 1));
                    rolling.remove(rolling.size() - 1);
                }
                return null;
            }, null, counts);
            if (!Bench.await(60_000, () -> pipeline.aggregator().settled())) {
                throw new IllegalStateException("the pipeline did not settle after the upgrade: " + pipeline.aggregator().progress());
            }
            check.verify("write amplification, aggregator", seed, fleet.clusters(), Map.of());
            baseline.awaitCaughtUp(60_000);
            long writes = pipeline.aggregator().writer().writes() - writesBefore;
            return new Amplification(counts[0], baseline.events(), counts[1], writes, baseline.writes());
        }
    }

    @Override
    public void close() throws Exception {
        stopPipeline();
        fleet.close();
    }
}
