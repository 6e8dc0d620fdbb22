package io.statusaggregator.deploy;

import static io.statusaggregator.deploy.StrimziResources.ALERTS_USER;
import static io.statusaggregator.deploy.StrimziResources.SUBSCRIBER_USER;
import static io.statusaggregator.deploy.StrimziResources.aclsOf;
import static io.statusaggregator.deploy.StrimziResources.applicationPartitions;
import static io.statusaggregator.deploy.StrimziResources.applicationTopics;
import static io.statusaggregator.deploy.StrimziResources.neededAcls;
import static io.statusaggregator.deploy.StrimziResources.readAll;
import static io.statusaggregator.deploy.StrimziResources.readDeployKafka;
import static io.statusaggregator.deploy.StrimziResources.topicName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.deploy.StrimziResources.Acl;
import io.statusaggregator.deploy.StrimziResources.Resources;
import io.strimzi.api.kafka.model.kafka.JbodStorage;
import io.strimzi.api.kafka.model.kafka.KRaftMetadataStorage;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.KafkaAuthorizationSimple;
import io.strimzi.api.kafka.model.kafka.PersistentClaimStorage;
import io.strimzi.api.kafka.model.kafka.SingleVolumeStorage;
import io.strimzi.api.kafka.model.kafka.listener.GenericKafkaListener;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerAuthenticationScramSha512;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerType;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.nodepool.ProcessRoles;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The Strimzi resources of {@code deploy/kafka} read into Strimzi's own API model ({@code io.strimzi:api}, by
 * {@link StrimziResources}): a field Strimzi does not know (or deprecates: what its v1 API removed), a value it cannot
 * take, or a topic the application uses that {@code deploy/kafka} lacks, fails the build. The topics and consumer groups
 * expected are the application's own defaults ({@link AggregatorConfig}), read by reflection, so that a topic added to
 * the application without its {@code KafkaTopic} cannot pass.
 *
 * <p>The ACLs are checked twice: as data here (each user has exactly the ACLs its component needs), and on a real
 * broker in {@link StrimziAclsOnBrokerTest}.
 */
class StrimziResourcesTest {
    /**
     * Cleanup policy of each topic, by its accessor in {@link AggregatorConfig.Topics}: what {@code Pipeline}
     * creates them with when {@code aggregator.topics.create=true}. A topic added to the application fails here
     * until its policy is decided, in topics.yaml and here.
     */
    private static final Map<String, String> CLEANUP_POLICIES = Map.of(
            "objectStates", "compact",
            "statuses", "compact",
            "transitions", "delete",
            "deadLetters", "delete");

    @Test
    void everyTopicTheApplicationUsesHasItsKafkaTopic() throws IOException {
        Resources resources = readDeployKafka();
        Map<String, String> topics = applicationTopics();
        Map<String, KafkaTopic> declared = new TreeMap<>();
        for (KafkaTopic topic : resources.topics()) {
            assertNull(declared.put(topicName(topic), topic), "topic " + topicName(topic) + " declared twice");
        }
        assertEquals(new TreeSet<>(topics.values()), declared.keySet(),
                "deploy/kafka/topics.yaml must declare exactly the topics the application uses (AggregatorConfig.Topics defaults)");

        int partitions = applicationPartitions();
        for (Map.Entry<String, String> topic : topics.entrySet()) {
            KafkaTopic resource = declared.get(topic.getValue());
            String name = topic.getValue();
            assertEquals(partitions, resource.getSpec().getPartitions(), name + ": partitions, as the application creates them");
            assertEquals(3, resource.getSpec().getReplicas(), name + ": replicas");
            Map<String, Object> config = resource.getSpec().getConfig();
            assertEquals("2", String.valueOf(config.get("min.insync.replicas")), name + ": min.insync.replicas (acks=all survives one broker down)");
            String policy = CLEANUP_POLICIES.get(topic.getKey());
            assertNotNull(policy, "topic " + name + " (AggregatorConfig.Topics." + topic.getKey()
                    + ") is new: decide its cleanup policy, in topics.yaml and in CLEANUP_POLICIES here");
            assertEquals(policy, config.get("cleanup.policy"), name + ": cleanup.policy");
            if (policy.equals("compact")) {
                // A rebuild reads every key's latest state, however old: nothing may expire it.
                assertFalse(config.containsKey("retention.ms"), name + ": a compacted topic keeps every key's latest value; no retention.ms");
                assertFalse(config.containsKey("retention.bytes"), name + ": a compacted topic keeps every key's latest value; no retention.bytes");
            } else {
                long retention = Long.parseLong(String.valueOf(config.get("retention.ms")));
                assertTrue(retention >= Duration.ofDays(7).toMillis(),
                        name + ": retention.ms must be set, at least 7 days (the alert bridge rebuilds from the transitions; "
                                + "dead letters wait for someone to look), got " + Duration.ofMillis(retention));
            }
        }
    }

    @Test
    void eachUserHasExactlyTheAclsItsComponentNeeds() throws IOException {
        Resources resources = readDeployKafka();
        Map<String, Set<Acl>> actual = new TreeMap<>();
        for (KafkaUser user : resources.users()) {
            assertInstanceOf(KafkaUserScramSha512ClientAuthentication.class, user.getSpec().getAuthentication(),
                    "KafkaUser " + user.getMetadata().getName() + ": SCRAM-SHA-512, as the listener requires");
            assertNull(actual.put(user.getMetadata().getName(), aclsOf(user)), "KafkaUser " + user.getMetadata().getName() + " twice");
        }
        Map<String, Set<Acl>> needed = neededAcls();
        assertEquals(needed.keySet(), actual.keySet(), "the KafkaUsers of users.yaml");
        for (String user : needed.keySet()) {
            assertEquals(needed.get(user), actual.get(user), "ACLs of KafkaUser " + user);
        }
        // Said plainly, what least privilege means here.
        assertTrue(actual.get(ALERTS_USER).stream().noneMatch(acl -> acl.operation().equals("Write")), "the alert bridge writes nothing");
        assertTrue(actual.get(SUBSCRIBER_USER).stream().noneMatch(acl -> acl.operation().equals("Write")), "a subscriber writes nothing");
        assertTrue(actual.values().stream().flatMap(Set::stream).noneMatch(acl -> acl.resourceType().equals("cluster")), "no cluster ACL");
        assertTrue(actual.values().stream().flatMap(Set::stream).noneMatch(acl -> acl.operation().equals("All")), "no All");
    }

    @Test
    void theClusterIsKraftWithTlsScramAndAcls() throws IOException {
        Resources resources = readDeployKafka();
        assertEquals(1, resources.kafkas().size(), "one Kafka");
        Kafka kafka = resources.kafkas().get(0);
        String cluster = kafka.getMetadata().getName();
        String namespace = kafka.getMetadata().getNamespace();
        assertNotNull(namespace, "Kafka: a namespace");
        assertEquals("enabled", kafka.getMetadata().getAnnotations().get("strimzi.io/kraft"));
        assertEquals("enabled", kafka.getMetadata().getAnnotations().get("strimzi.io/node-pools"));

        List<GenericKafkaListener> listeners = kafka.getSpec().getKafka().getListeners();
        assertEquals(1, listeners.size(), "one listener: every client authenticates");
        GenericKafkaListener tls = listeners.get(0);
        assertEquals(9093, tls.getPort());
        assertTrue(tls.isTls(), "TLS");
        assertEquals(KafkaListenerType.INTERNAL, tls.getType());
        assertInstanceOf(KafkaListenerAuthenticationScramSha512.class, tls.getAuth(), "SCRAM-SHA-512");
        assertInstanceOf(KafkaAuthorizationSimple.class, kafka.getSpec().getKafka().getAuthorization(), "simple authorization (ACLs)");
        Map<String, Object> config = kafka.getSpec().getKafka().getConfig();
        assertEquals("false", String.valueOf(config.get("auto.create.topics.enable")), "topics come from KafkaTopics only");
        assertEquals("2", String.valueOf(config.get("min.insync.replicas")));
        assertNotNull(kafka.getSpec().getEntityOperator().getTopicOperator(), "the topic operator (topics.yaml)");
        assertNotNull(kafka.getSpec().getEntityOperator().getUserOperator(), "the user operator (users.yaml)");

        assertEquals(1, resources.pools().size(), "one node pool");
        KafkaNodePool pool = resources.pools().get(0);
        assertEquals(3, pool.getSpec().getReplicas());
        assertEquals(Set.of(ProcessRoles.CONTROLLER, ProcessRoles.BROKER), Set.copyOf(pool.getSpec().getRoles()), "controller and broker");
        List<SingleVolumeStorage> volumes = pool.getSpec().getStorage() instanceof JbodStorage jbod ? jbod.getVolumes()
                : List.of(assertInstanceOf(SingleVolumeStorage.class, pool.getSpec().getStorage()));
        assertFalse(volumes.isEmpty());
        for (SingleVolumeStorage volume : volumes) {
            PersistentClaimStorage claim = assertInstanceOf(PersistentClaimStorage.class, volume, "persistent storage");
            assertFalse(claim.isDeleteClaim(), "the data outlives the Kafka resource");
        }
        assertEquals(1, volumes.stream().filter(v -> v.getKraftMetadata() == KRaftMetadataStorage.SHARED).count(),
                "one volume holds the KRaft metadata");
        assertEquals(pool.getSpec().getResources().getLimits().get("memory"), pool.getSpec().getResources().getRequests().get("memory"),
                "memory requested as limited");
        var spread = pool.getSpec().getTemplate().getPod().getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
        assertTrue(spread.stream().anyMatch(term -> term.getPodAffinityTerm().getTopologyKey().equals("kubernetes.io/hostname")
                && Map.of("strimzi.io/cluster", cluster, "strimzi.io/pool-name", pool.getMetadata().getName())
                        .equals(term.getPodAffinityTerm().getLabelSelector().getMatchLabels())), "the nodes spread over hosts: " + spread);

        // Everything in one namespace, the one the operators watch, and bound to this cluster.
        for (HasMetadata resource : resources.all()) {
            String what = resource.getKind() + " " + resource.getMetadata().getName();
            assertEquals(namespace, resource.getMetadata().getNamespace(), what + ": namespace");
            if (!(resource instanceof Kafka)) {
                assertEquals(cluster, resource.getMetadata().getLabels().get("strimzi.io/cluster"), what + ": label strimzi.io/cluster");
            }
        }
    }

    @Test
    void strictReadingRefusesWhatStrimziDoesNotKnow() {
        String topic = """
                apiVersion: kafka.strimzi.io/v1
                kind: KafkaTopic
                metadata:
                  name: t
                  labels:
                    strimzi.io/cluster: c
                spec:
                  partitions: 6
                %s
                """;
        // The valid one reads.
        assertEquals(1, assertDoesNotThrowIo(() -> readAll(topic.formatted(""), "valid")).size());
        // A misspelt field, where Strimzi's model would otherwise keep it aside in additionalProperties.
        assertRefused(topic.formatted("  replcas: 3"), "replcas");
        // ... and in Fabric8's ObjectMeta.
        assertRefused(topic.formatted("").replace("  labels:", "  labells:"), "labells");
        // A key given twice: YAML would keep the last one silently.
        assertRefused(topic.formatted("  partitions: 3"), "partitions");
        // A field the v1 API removed (v1beta2's Kafka.spec.kafka.replicas: node pools say it now).
        assertRefused("""
                apiVersion: kafka.strimzi.io/v1
                kind: Kafka
                metadata:
                  name: c
                spec:
                  kafka:
                    replicas: 3
                    listeners: []
                """, "\"replicas\" is deprecated");
        // ... and v1beta2's single ACL operation (v1: operations).
        assertRefused("""
                apiVersion: kafka.strimzi.io/v1
                kind: KafkaUser
                metadata:
                  name: u
                spec:
                  authorization:
                    type: simple
                    acls:
                      - resource: {type: topic, name: t}
                        operation: Read
                """, "\"operation\" is deprecated");
        // An operation Strimzi does not know (its enum reads it as null).
        assertRefused("""
                apiVersion: kafka.strimzi.io/v1
                kind: KafkaUser
                metadata:
                  name: u
                spec:
                  authorization:
                    type: simple
                    acls:
                      - resource: {type: topic, name: t}
                        operations: [Reed]
                """, "operations");
        // An older API version.
        assertRefused(topic.formatted("").replace("kafka.strimzi.io/v1", "kafka.strimzi.io/v1beta2"), "apiVersion");
    }

    private static void assertRefused(String yaml, String mentioned) {
        AssertionError error = assertThrows(AssertionError.class, () -> readAll(yaml, "test"), "should be refused:\n" + yaml);
        assertTrue(error.getMessage().contains(mentioned), "the error names " + mentioned + ": " + error.getMessage());
    }

    private interface IoSupplier<T> {
        T get() throws IOException;
    }

    private static <T> T assertDoesNotThrowIo(IoSupplier<T> supplier) {
        try {
            return supplier.get();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
