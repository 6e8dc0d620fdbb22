package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.ingest.IngestLeadership;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ingest leader election with a Kubernetes Lease, on a real broker and the CRUD API server: one of two replicas
 * ingests while both aggregate; when it stops, the other takes over; a holder that died without giving the lease up
 * keeps it only until it expires.
 */
class IngestLeadershipTest {
    private static final String LEASE = "status-aggregator-ingest";
    private static final Duration LEASE_DURATION = Duration.ofSeconds(3);
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());


    private Pipeline replica(String identity) throws Exception {
        Pipeline.Settings base = Fleet.settings(kafka.bootstrapServers(), pipelineRun.id(), true);
        Pipeline.Settings elected = new Pipeline.Settings(base.kafka(), base.objectStatesTopic(), base.statusesTopic(),
                base.transitionsTopic(), base.deadLettersTopic(), base.createTopics(), base.partitions(), base.replicationFactor(), base.groupId(), true,
                base.ingestSettings(), base.aggregatorSettings(), base.writerSettings(), base.cniSettings(), base.compatibilityConfigMap(),
                Optional.of(new IngestLeadership.Settings("default", LEASE, identity, LEASE_DURATION, Duration.ofSeconds(2),
                        Duration.ofMillis(200))));
        return pipelineRun.start(elected);
    }

    private Optional<String> holder() {
        return Optional.ofNullable(pipelineRun.kubernetes().client().leases().inNamespace("default").withName(LEASE).get())
                .map(lease -> lease.getSpec().getHolderIdentity());
    }

    @Test
    void oneReplicaIngestsAndTheOtherTakesOverWhenItStops() throws Exception {
        Pipeline a = replica("replica-a");
        Pipeline b = replica("replica-b");
        await(DEADLINE, () -> a.ingesting() != b.ingesting(), () -> "exactly one replica ingests: a=" + a.ingesting() + ", b=" + b.ingesting());
        Pipeline leader = a.ingesting() ? a : b;
        Pipeline other = leader == a ? b : a;
        assertEquals(Optional.of(leader == a ? "replica-a" : "replica-b"), holder());

        pipelineRun.fleet().createCluster("alpha", 1, 1);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");

        leader.close();
        await(DEADLINE, other::ingesting, () -> "the other replica took over: holder " + holder());
        assertEquals(Optional.of(other == a ? "replica-a" : "replica-b"), holder());
        // What happens now reaches the status through the new holder's ingest.
        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");
    }

    @Test
    void aHolderThatDiedKeepsTheLeaseOnlyUntilItExpires() throws Exception {
        ZonedDateTime renewed = ZonedDateTime.now().truncatedTo(ChronoUnit.MICROS);
        Lease ghost = new LeaseBuilder().withNewMetadata().withName(LEASE).withNamespace("default").endMetadata()
                .withNewSpec().withHolderIdentity("replica-gone").withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
                .withAcquireTime(renewed).withRenewTime(renewed).withLeaseTransitions(0).endSpec().build();
        pipelineRun.kubernetes().client().leases().inNamespace("default").resource(ghost).create();

        Pipeline replica = replica("replica-a");
        await(DEADLINE, replica::ingesting, () -> "took over once the lease expired: holder " + holder());
        assertEquals(Optional.of("replica-a"), holder());
        assertTrue(!ZonedDateTime.now().isBefore(renewed.plus(LEASE_DURATION)),
                "not before the dead holder's lease expired at " + renewed.plus(LEASE_DURATION));
    }

    /**
     * A replica that does not hold the Lease keeps its informers listed and watching: when it takes over it sends what
     * changed while nobody ingested, without listing the API server again.
     */
    @Test
    void aStandbyTakingOverSendsWhatChangedMeanwhileWithoutListingAgain() throws Exception {
        java.util.List<String> machineLists = new java.util.concurrent.CopyOnWriteArrayList<>();
        pipelineRun.kubernetes().onRequest(request -> {
            if ("GET".equals(request.getMethod()) && request.getPath().startsWith("/apis/cluster.x-k8s.io/v1beta1/namespaces/eksa-system/machines")
                    && !request.getPath().contains("watch=true")) {
                machineLists.add(request.getPath());
            }
        });
        // A holder that died with its Lease renewed a little ahead: the replica stands by for about 10 s.
        ZonedDateTime renewed = ZonedDateTime.now().plusSeconds(7).truncatedTo(ChronoUnit.MICROS);
        Lease ghost = new LeaseBuilder().withNewMetadata().withName(LEASE).withNamespace("default").endMetadata()
                .withNewSpec().withHolderIdentity("replica-gone").withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
                .withAcquireTime(renewed).withRenewTime(renewed).withLeaseTransitions(0).endSpec().build();
        pipelineRun.kubernetes().client().leases().inNamespace("default").resource(ghost).create();
        Pipeline replica = replica("replica-a");

        pipelineRun.fleet().createCluster("alpha", 1, 1);
        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        assertTrue(!replica.ingesting(), "the changes were made while the replica stood by");

        await(DEADLINE, replica::ingesting, () -> "took over once the lease expired: holder " + holder());
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");
        assertEquals(1, machineLists.size(), "the Machines were listed once, by the standby's informer: " + machineLists);
    }
}
