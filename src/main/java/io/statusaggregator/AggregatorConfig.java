package io.statusaggregator;

import io.smallrye.config.ConfigMapping;
import io.statusaggregator.aggregation.WantedWriter;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The application's settings ({@code aggregator.*}); every key is documented in docs/configuration.md. */
@ConfigMapping(prefix = "aggregator")
public interface AggregatorConfig {
    /** Where EKS Anywhere keeps the CAPI objects of its clusters. */
    @WithName("capi-namespace")
    @WithDefault("eksa-system")
    String capiNamespace();

    /** Namespaces whose EKS-A Clusters are watched; every namespace when unset. */
    @WithName("cluster-namespaces")
    Optional<List<String>> clusterNamespaces();

    /** The consumer group the aggregating instances share. */
    @WithName("group-id")
    @WithDefault("status-aggregator")
    String groupId();

    /** How long a cluster's events are gathered into one computation. */
    @WithName("coalescing-window")
    @WithDefault("100ms")
    Duration coalescingWindow();

    /**
     * How long the coalescing window grows at most while aggregation is behind by more records than one poll takes;
     * the coalescing window itself (or less) turns the growth off. Kept equal to
     * {@code CoalescingWindow.DEFAULT_LONGEST}.
     */
    @WithName("coalescing-window-max")
    @WithDefault("3s")
    Duration longestCoalescingWindow();

    /** How long a written status counts as shown, from the end of its write, while the Cluster does not show it yet. */
    @WithName("echo-timeout")
    @WithDefault("10s")
    Duration echoTimeout();

    /**
     * How long an instance rehearses the rebuild at most before it joins a consumer group whose members serve the
     * partitions meanwhile; 0 turns the rehearsal off.
     */
    @WithName("rebuild-rehearsal")
    @WithDefault("30s")
    Duration rebuildRehearsal();

    /**
     * A ConfigMap in the CAPI namespace whose key {@code compatibility.yaml} replaces the built-in compatibility data
     * while it exists; followed at run time.
     */
    @WithName("compatibility.configmap")
    Optional<String> compatibilityConfigMap();

    Topics topics();

    Capi capi();

    Ingest ingest();

    Write write();

    Status status();

    Embedded embedded();

    Cni cni();

    Table table();

    Alerts alerts();

    Access access();

    Http http();

    /** What any request meets before its route (docs/access.md, docs/operations.md). */
    interface Http {
        /** A request body not complete this long after the request's head is cut off: 408. */
        @WithName("body-timeout")
        @WithDefault("10s")
        Duration bodyTimeout();

        /** Bytes a second a request body must arrive at, on average, from its first second on; slower: 408. */
        @WithName("body-min-rate")
        @WithDefault("1024")
        long bodyMinRate();

        /**
         * The {@code Host} names (any port) requests are served for; {@code *}: any. Unset: localhost, 127.0.0.1 and
         * [::1] for the embedded default, any in {@code run} against a cluster. Health answers any Host.
         */
        @WithName("allowed-hosts")
        Optional<List<String>> allowedHosts();
    }

    /** Who may use the fleet page, the upgrade check and the metrics (see docs/access.md). */
    interface Access {
        /**
         * Review each request's bearer token with the API server (TokenReview, SubjectAccessReview). Unset: on in
         * {@code run} against a cluster, off for the embedded default (which listens on loopback only).
         */
        Optional<Boolean> review();

        /** TokenReviews a second, at most, of tokens not reviewed in the last 10 s; beyond, 429. At least 1. */
        @WithName("token-reviews-per-second")
        @WithDefault("20")
        int tokenReviewsPerSecond();
    }

    /** The alert bridge ({@code alerts}): where it posts, and when Ready's alert fires. */
    interface Alerts {
        /** Alertmanager's base URL; {@code --alertmanager} overrides it. */
        @WithName("alertmanager-url")
        Optional<String> alertmanagerUrl();

        /** How long Ready may be False before ClusterNotReady fires; {@code --not-ready-for} overrides it. */
        @WithName("not-ready-for")
        @WithDefault("10m")
        Duration notReadyFor();

        /** How often a firing alert is posted again. */
        @WithName("resend-interval")
        @WithDefault("1m")
        Duration resendInterval();

        /** How often alerts are checked when no event arrives. */
        @WithName("evaluation-interval")
        @WithDefault("10s")
        Duration evaluationInterval();

        @WithName("group-id")
        @WithDefault("status-aggregator-alerts")
        String groupId();
    }

    interface Topics {
        @WithName("object-states")
        @WithDefault("capi-object-states")
        String objectStates();

        @WithDefault("cluster-statuses")
        String statuses();

        /** One CloudEvent per status change of a cluster (not compacted). */
        @WithDefault("cluster-transitions")
        String transitions();

        /**
         * Records of the object-state topic that aggregation cannot use, unchanged, with the reason in headers (not
         * compacted).
         */
        @WithName("dead-letters")
        @WithDefault("capi-object-states-dead-letters")
        String deadLetters();

        /** Create missing topics at start (compacted); off where an operator such as Strimzi owns them. */
        @WithDefault("true")
        boolean create();

        @WithDefault("6")
        int partitions();

        @WithName("replication-factor")
        @WithDefault("1")
        short replicationFactor();
    }

    /** Which Cluster API version ingest reads (docs/how-it-works.md#ingest). */
    interface Capi {
        /**
         * {@code auto}: {@code v1beta2} where the API server serves it, else {@code v1beta1}, decided again while
         * running; {@code v1beta2} or {@code v1beta1}: that one only (EtcdadmCluster is read at {@code v1beta1}
         * always).
         */
        @WithName("api-version")
        @WithDefault("auto")
        String apiVersion();

        /** How often discovery is asked which Cluster API versions the API server serves, while ingest runs. */
        @WithName("version-check-every")
        @WithDefault("60s")
        Duration versionCheckEvery();
    }

    interface Ingest {
        /** Whether this instance runs the informers and feeds the object-state topic. */
        @WithDefault("true")
        boolean enabled();

        /**
         * How long an informer may go without a running watch before it is replaced by one that lists again
         * (StalledWatchGuard): ingest's, the management view's, the CNI observer's and the compatibility ConfigMap's.
         */
        @WithName("relist-stalled-after")
        @WithDefault("30s")
        Duration relistStalledAfter();

        /**
         * How often the object-state topic is checked against the API server: a key whose object is gone (or never
         * was: a record written by anything but ingest) gets its tombstone within this time.
         */
        @WithName("reconcile-every")
        @WithDefault("5m")
        Duration reconcileEvery();

        /**
         * How long an object's state may be refused by the broker or the producer (not a passing outage) before
         * readiness says ingest is stuck ({@code ingest-sends} DOWN), until it is sent.
         */
        @WithName("stuck-send-after")
        @WithDefault("1m")
        Duration stuckSendAfter();

        /**
         * Whether a Kubernetes Lease decides which replica ingests (the others only aggregate); without it every
         * replica with ingest enabled ingests.
         */
        @WithName("leader-election")
        @WithDefault("true")
        boolean leaderElection();

        Lease lease();

        interface Lease {
            @WithDefault("status-aggregator-ingest")
            String name();

            /** Where the Lease lives; the Kubernetes client's namespace (the pod's, in a cluster) when unset. */
            Optional<String> namespace();

            /**
             * How long a dead holder keeps the others waiting; shorter than client-go's 15 s, for failover within
             * the consumer group's 3 s session. The holder renews every retry period and stops
             * ingesting after the renew deadline without a renewal, a second before another replica may take over.
             */
            @WithDefault("3s")
            Duration duration();

            @WithName("renew-deadline")
            @WithDefault("2s")
            Duration renewDeadline();

            @WithName("retry-period")
            @WithDefault("500ms")
            Duration retryPeriod();
        }
    }

    /** Who writes the Clusters' statuses (docs/deploy.md, "Beside EKS-A's own controller"). */
    interface Status {
        /**
         * {@code auto}: this aggregator writes them, and steps aside for a Cluster whose status another writer keeps
         * setting; {@code eksa}: EKS-A's controller writes them, this aggregator no status and no status Event.
         */
        @WithDefault("auto")
        WantedWriter writer();

        /** Two foreign writes of one Cluster's status this close make the aggregator step aside for it. */
        @WithName("step-aside-window")
        @WithDefault("10m")
        Duration stepAsideWindow();
    }

    interface Write {
        /** Status writes in flight at once, across clusters. */
        @WithDefault("4")
        int concurrency();

        @WithName("initial-backoff")
        @WithDefault("200ms")
        Duration initialBackoff();

        @WithName("max-backoff")
        @WithDefault("30s")
        Duration maxBackoff();
    }

    interface Cni {
        /** At most this many workload clusters are connected to at once; further ones are reported, not observed. */
        @WithName("max-connections")
        @WithDefault("500")
        int maxConnections();

        /** A workload API that has not answered for this long makes its cluster's status say so. */
        @WithName("stale-after")
        @WithDefault("30s")
        Duration staleAfter();

        /** How often the workload connections are checked. */
        @WithName("check-interval")
        @WithDefault("5s")
        Duration checkInterval();

        /** Connect and request timeout towards a workload API. */
        @WithName("request-timeout")
        @WithDefault("10s")
        Duration requestTimeout();
    }

    interface Embedded {
        /** Run the demo fleet on the embedded API server. */
        @WithDefault("true")
        boolean simulate();

        /** Time between two steps of the demo fleet. */
        @WithDefault("1s")
        Duration tick();

        /** Port of the embedded Kubernetes API on 127.0.0.1; 0 takes a free one. */
        @WithName("api-port")
        @WithDefault("0")
        int apiPort();

        /**
         * The status schema the embedded API serves EKS-A Clusters with: {@code eksa}, EKS Anywhere's own CRD (a stock
         * management cluster: no defaultCNI, workerNodeGroups or versions kept), or {@code full}, every field kept.
         */
        @WithName("cluster-crd")
        @WithDefault("eksa")
        io.statusaggregator.embedded.EmbeddedKubernetes.ClusterCrd clusterCrd();

        /**
         * The Cluster API of the simulated management cluster: {@code v1beta2}, a CAPI v1.13 one (serving
         * {@code v1beta2} and {@code v1beta1}, the demo fleet's objects written at {@code v1beta2}); {@code v1beta1}, a
         * CAPI v1.10 one (serving and written at {@code v1beta1} only).
         */
        @WithName("capi-api-version")
        @WithDefault("v1beta2")
        String capiApiVersion();

        /** Where the kubeconfig of the embedded API is written. */
        @WithDefault("${java.io.tmpdir}/status-aggregator/kubeconfig")
        String kubeconfig();
    }

    interface Table {
        /** Print the fleet table on standard output; on by default only for the embedded default. */
        Optional<Boolean> enabled();

        @WithDefault("1s")
        Duration interval();
    }
}
