package io.statusaggregator.deploy;

import static io.statusaggregator.deploy.StrimziResources.AGGREGATOR_USER;
import static io.statusaggregator.deploy.StrimziResources.ALERTS_USER;
import static io.statusaggregator.deploy.StrimziResources.SUBSCRIBER_GROUP_PREFIX;
import static io.statusaggregator.deploy.StrimziResources.SUBSCRIBER_USER;
import static io.statusaggregator.deploy.StrimziResources.aclsOf;
import static io.statusaggregator.deploy.StrimziResources.aggregatorGroup;
import static io.statusaggregator.deploy.StrimziResources.alertsGroup;
import static io.statusaggregator.deploy.StrimziResources.applicationTopics;
import static io.statusaggregator.deploy.StrimziResources.readDeployKafka;
import static io.statusaggregator.deploy.StrimziResources.topicName;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import io.statusaggregator.aggregation.RebuildRehearsal;
import io.statusaggregator.deploy.StrimziResources.Acl;
import io.statusaggregator.deploy.StrimziResources.Resources;
import io.statusaggregator.alerts.AlertBridge;
import io.statusaggregator.topics.CompactedTopic;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.acl.AclOperation;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The ACLs of {@code deploy/kafka}'s users on a real broker (in process, with Kafka's {@code StandardAuthorizer}, the one
 * Strimzi's {@code simple} authorization configures), where each user, given the ACLs of its {@code KafkaUser}, does its
 * component's work (the alert bridge runs for real) and is refused the rest. As data, the ACLs are
 * {@link StrimziResourcesTest}'s.
 */
class StrimziAclsOnBrokerTest {
    private static final String ADMIN = "plain-admin";
    private static final String ADMIN_PASSWORD = "plain-admin-secret";
    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * A real broker (in process, KRaft) with SASL and Kafka's StandardAuthorizer, the ACLs of users.yaml and the
     * topics of topics.yaml (one replica: one broker). The mechanism is PLAIN rather than SCRAM (the test kit's
     * broker speaks PLAIN; the users' passwords are set in its JAAS line): authorization sees the same principal,
     * {@code User:<KafkaUser name>}, whatever the mechanism.
     */
    @Test
    void theAclsLetEachComponentDoItsWorkAndNothingElse() throws Exception {
        Resources resources = readDeployKafka();
        Map<String, String> passwords = new LinkedHashMap<>();
        resources.users().forEach(user -> passwords.put(user.getMetadata().getName(), user.getMetadata().getName() + "-secret"));
        StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + ADMIN
                + "\" password=\"" + ADMIN_PASSWORD + "\" user_" + ADMIN + "=\"" + ADMIN_PASSWORD + "\"");
        passwords.forEach((user, password) -> jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
        jaas.append(';');

        String loginConfig = System.getProperty("java.security.auth.login.config");
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBrokerListenerName(ListenerName.normalised("EXTERNAL"))
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .build())
                .setConfigProp("listener.name.external.plain.sasl.jaas.config", jaas.toString())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("auto.create.topics.enable", "false")
                .setDeleteOnClose(true)
                .build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            Broker broker = new Broker(cluster.bootstrapServers(), passwords);
            try (Admin admin = Admin.create(broker.client(ADMIN, ADMIN_PASSWORD))) {
                createTopics(admin, resources.topics());
                createAcls(admin, resources.users());
            }
            Map<String, String> topics = applicationTopics();
            aggregatorWorks(broker, topics);
            alertBridgeWorks(broker, topics);
            alertBridgeRefusedStops(broker, topics);
            subscriberWorks(broker, topics);
        } finally {
            cluster.close();
            // The test kit points the JVM's JAAS configuration at a file of its own; other tests need none.
            if (loginConfig == null) {
                System.clearProperty("java.security.auth.login.config");
            } else {
                System.setProperty("java.security.auth.login.config", loginConfig);
            }
            javax.security.auth.login.Configuration.setConfiguration(null);
        }
    }

    /** Client settings per user, as the application gets them (kafka.* properties). */
    private record Broker(String bootstrap, Map<String, String> passwords) {
        Map<String, Object> client(String user) {
            return client(user, Objects.requireNonNull(passwords.get(user), "no KafkaUser " + user));
        }

        Map<String, Object> client(String user, String password) {
            Map<String, Object> kafka = new HashMap<>();
            kafka.put("bootstrap.servers", bootstrap);
            kafka.put("security.protocol", "SASL_PLAINTEXT");
            kafka.put("sasl.mechanism", "PLAIN");
            kafka.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                    + "\" password=\"" + password + "\";");
            // A refusal must come back fast, not after the clients' default minute.
            kafka.put("default.api.timeout.ms", 15_000);
            kafka.put("request.timeout.ms", 10_000);
            return kafka;
        }
    }

    private static void createTopics(Admin admin, List<KafkaTopic> topics) throws Exception {
        List<NewTopic> create = new ArrayList<>();
        for (KafkaTopic topic : topics) {
            Map<String, String> config = new HashMap<>();
            topic.getSpec().getConfig().forEach((key, value) -> config.put(key, String.valueOf(value)));
            config.put("min.insync.replicas", "1"); // one broker
            create.add(new NewTopic(topicName(topic), topic.getSpec().getPartitions(), (short) 1).configs(config));
        }
        admin.createTopics(create).all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The ACLs of each KafkaUser, as Strimzi's user operator sets them: principal User:NAME. */
    private static void createAcls(Admin admin, List<KafkaUser> users) throws Exception {
        List<AclBinding> bindings = new ArrayList<>();
        for (KafkaUser user : users) {
            for (Acl acl : aclsOf(user)) {
                ResourceType type = switch (acl.resourceType()) {
                    case "topic" -> ResourceType.TOPIC;
                    case "group" -> ResourceType.GROUP;
                    case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
                    case "cluster" -> ResourceType.CLUSTER;
                    default -> throw new AssertionError(acl);
                };
                org.apache.kafka.common.acl.AclOperation operation = org.apache.kafka.common.acl.AclOperation.fromString(AclOperation.forValue(acl.operation()).name()
                        .replace("CLUSTERACTION", "CLUSTER_ACTION").replace("ALTERCONFIGS", "ALTER_CONFIGS")
                        .replace("DESCRIBECONFIGS", "DESCRIBE_CONFIGS").replace("IDEMPOTENTWRITE", "IDEMPOTENT_WRITE"));
                assertTrue(operation != org.apache.kafka.common.acl.AclOperation.UNKNOWN, "operation " + acl.operation());
                bindings.add(new AclBinding(new ResourcePattern(type, acl.name(), acl.patternType().equals("literal") ? PatternType.LITERAL : PatternType.PREFIXED),
                        new AccessControlEntry("User:" + user.getMetadata().getName(), "*", operation, AclPermissionType.ALLOW)));
            }
        }
        admin.createAcls(bindings).all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // The controller has them; wait until the broker's authorizer does too (it learns them from the metadata log).
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (admin.describeAcls(AclBindingFilter.ANY).values().get(WAIT.toSeconds(), TimeUnit.SECONDS).size() < bindings.size()) {
            assertTrue(System.nanoTime() < deadline, "the broker did not apply the ACLs");
            Thread.sleep(50);
        }
    }

    /** As the aggregator does: idempotent producers (acks=all), its consumer group, topics read without a group. */
    private static void aggregatorWorks(Broker broker, Map<String, String> topics) throws Exception {
        Map<String, Object> kafka = broker.client(AGGREGATOR_USER);
        // The producers, as Pipeline makes them: idempotent, acks=all; one record on each topic.
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            for (String topic : topics.values()) {
                try {
                    producer.send(new ProducerRecord<>(topic, "default/alpha", "{}")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw new AssertionError("the aggregator could not write to " + topic + ": " + e.getCause(), e);
                }
            }
        }
        // Aggregation: the consumer group on the object states, offsets committed.
        Map<String, Object> group = new HashMap<>(kafka);
        group.put(ConsumerConfig.GROUP_ID_CONFIG, aggregatorGroup());
        assertTrue(consumeInGroup(group, topics.get("objectStates")) > 0, "the aggregator reads capi-object-states in its group");
        // A replica joining asks first whether the group has members (to rehearse its rebuild while they serve it).
        Map<String, Object> member = new HashMap<>(group);
        member.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        member.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> serving = new KafkaConsumer<>(member)) {
            serving.subscribe(List.of(topics.get("objectStates")));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (serving.assignment().isEmpty() && System.nanoTime() < deadline) {
                serving.poll(Duration.ofMillis(200));
            }
            assertTrue(RebuildRehearsal.othersServe(kafka, aggregatorGroup(), WAIT).get(WAIT.toSeconds() * 2, TimeUnit.SECONDS),
                    "the aggregator sees the members of its group (describe, implied by the group's read)");
        }
        // The published statuses at start, the fleet page, vanished objects: whole topics read without a group.
        for (String topic : List.of(topics.get("objectStates"), topics.get("statuses"), topics.get("transitions"))) {
            assertTrue(CompactedTopic.latest(kafka, topic, WAIT).map(m -> !m.isEmpty()).orElse(false), "the aggregator reads " + topic);
        }
        // The dead letters it sends (above, as DeadLetters does: bytes, headers kept), and never reads.
        try (KafkaProducer<byte[], byte[]> producer = bytesProducer(kafka)) {
            ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(topics.get("deadLetters"), "a/b".getBytes(), "not json".getBytes());
            letter.headers().add("dead-letter.reason", "not-json".getBytes());
            producer.send(letter).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the aggregator could not send a dead letter: " + e.getCause(), e);
        }
        assertDenied("the aggregator reads the dead letters", TopicAuthorizationException.class,
                () -> CompactedTopic.latest(kafka, topics.get("deadLetters"), WAIT));
        // With aggregator.topics.create=true it would list the topics and find them all (nothing to create)...
        try (Admin admin = Admin.create(kafka)) {
            assertTrue(admin.listTopics().names().get(WAIT.toSeconds(), TimeUnit.SECONDS).containsAll(topics.values()),
                    "the aggregator sees its topics");
            // ... and could not create one.
            assertDenied("the aggregator creates a topic", TopicAuthorizationException.class, () -> admin.createTopics(List.of(new NewTopic("status-aggregator-extra", 1, (short) 1)))
                    .all().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }

    /** The real alert bridge, as the alerts user, against an Alertmanager that takes everything. */
    private static void alertBridgeWorks(Broker broker, Map<String, String> topics) throws Exception {
        Map<String, Object> kafka = broker.client(ALERTS_USER);
        String transitions = topics.get("transitions");
        HttpServer alertmanager = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        alertmanager.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        alertmanager.start();
        try (AlertBridge bridge = new AlertBridge(new AlertBridge.Settings(kafka, transitions, alertsGroup(),
                URI.create("http://127.0.0.1:" + alertmanager.getAddress().getPort()), Duration.ofMinutes(10), Duration.ofMinutes(1),
                Duration.ofMillis(200)), Clock.systemUTC())) {
            bridge.start();
            // The record the aggregator sent is no CloudEvent: read, skipped, and its offset committed with a delivery.
            try (Admin admin = Admin.create(broker.client(ADMIN, ADMIN_PASSWORD))) {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (committed(admin, alertsGroup()) < endOffsets(admin, transitions)) {
                    assertTrue(System.nanoTime() < deadline, "the alert bridge did not read and commit " + transitions
                            + " (read " + bridge.eventsRead() + ", skipped " + bridge.eventsSkipped() + ")");
                    Thread.sleep(100);
                }
            }
            assertTrue(bridge.eventsRead() > 0, "the alert bridge read the feed");
        } finally {
            alertmanager.stop(0);
        }
        // It cannot write, to its feed or anywhere.
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            assertDenied("the alert bridge writes to " + transitions, AuthorizationException.class, () -> producer.send(new ProducerRecord<>(transitions, "default/alpha", "forged"))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        // Nor read the object states or the statuses, nor use the aggregator's group.
        assertDenied("the alert bridge reads the object states", TopicAuthorizationException.class, () -> CompactedTopic.latest(kafka, topics.get("objectStates"), WAIT));
        assertDenied("the alert bridge reads the statuses", TopicAuthorizationException.class, () -> CompactedTopic.latest(kafka, topics.get("statuses"), WAIT));
        Map<String, Object> foreign = new HashMap<>(kafka);
        foreign.put(ConsumerConfig.GROUP_ID_CONFIG, aggregatorGroup());
        assertDenied("the alert bridge joins the aggregator's group", GroupAuthorizationException.class, () -> consumeInGroup(foreign, transitions));
    }

    /**
     * The alert bridge with a password the broker refuses (its Secret rotated under a running pod, whose environment
     * keeps the old one): it stops and says so, for the command to exit and the restart to read the new one.
     */
    private static void alertBridgeRefusedStops(Broker broker, Map<String, String> topics) throws Exception {
        BlockingQueue<Throwable> stopped = new LinkedBlockingQueue<>();
        try (AlertBridge bridge = new AlertBridge(new AlertBridge.Settings(broker.client(ALERTS_USER, "a-rotated-password"),
                topics.get("transitions"), alertsGroup(), URI.create("http://127.0.0.1:9"), Duration.ofMinutes(10), Duration.ofMinutes(1),
                Duration.ofMillis(200)), Clock.systemUTC()).onStopped(stopped::add)) {
            bridge.start();
            Throwable fault = stopped.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertInstanceOf(AuthenticationException.class, fault, "the refused credentials stop the bridge");
        }
    }

    /** A subscriber of the feeds: both read, in a group of its prefix and without one; nothing else. */
    private static void subscriberWorks(Broker broker, Map<String, String> topics) throws Exception {
        Map<String, Object> kafka = broker.client(SUBSCRIBER_USER);
        Map<String, Object> group = new HashMap<>(kafka);
        group.put(ConsumerConfig.GROUP_ID_CONFIG, SUBSCRIBER_GROUP_PREFIX + "dashboard");
        for (String topic : List.of(topics.get("statuses"), topics.get("transitions"))) {
            assertTrue(consumeInGroup(group, topic) > 0, "a subscriber reads " + topic + " in its group");
            assertTrue(CompactedTopic.latest(kafka, topic, WAIT).isPresent(), "a subscriber reads " + topic + " without a group (watch)");
        }
        assertDenied("a subscriber reads the object states", TopicAuthorizationException.class, () -> CompactedTopic.latest(kafka, topics.get("objectStates"), WAIT));
        assertDenied("a subscriber reads the dead letters", TopicAuthorizationException.class, () -> CompactedTopic.latest(kafka, topics.get("deadLetters"), WAIT));
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            assertDenied("a subscriber writes to the statuses", AuthorizationException.class, () -> producer.send(new ProducerRecord<>(topics.get("statuses"), "default/alpha", "forged"))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        for (String other : List.of(alertsGroup(), aggregatorGroup(), "dashboard")) {
            Map<String, Object> foreign = new HashMap<>(kafka);
            foreign.put(ConsumerConfig.GROUP_ID_CONFIG, other);
            assertDenied("a subscriber joins group " + other, GroupAuthorizationException.class, () -> consumeInGroup(foreign, topics.get("transitions")));
        }
    }

    private static KafkaProducer<byte[], byte[]> bytesProducer(Map<String, Object> kafka) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        return new KafkaProducer<>(props);
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> kafka) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        return new KafkaProducer<>(props);
    }

    /** Subscribes in the group of {@code kafka}, reads what the topic has, commits; returns the records read. */
    private static int consumeInGroup(Map<String, Object> kafka, String topic) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            int read = 0;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (read == 0 && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                read += records.count();
            }
            consumer.commitSync();
            return read;
        }
    }

    private static long committed(Admin admin, String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(WAIT.toSeconds(), TimeUnit.SECONDS)
                .values().stream().filter(Objects::nonNull).mapToLong(OffsetAndMetadata::offset).sum();
    }

    private static long endOffsets(Admin admin, String topic) throws Exception {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(WAIT.toSeconds(), TimeUnit.SECONDS).get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> latest = Stream.iterate(0, i -> i + 1).limit(partitions)
                .collect(Collectors.toMap(i -> new TopicPartition(topic, i), i -> OffsetSpec.latest()));
        return admin.listOffsets(latest).all().get(WAIT.toSeconds(), TimeUnit.SECONDS).values().stream()
                .mapToLong(info -> info.offset()).sum();
    }

    /** Fails unless {@code action} is refused with {@code type}, thrown directly or as the cause of a failed future. */
    private static void assertDenied(String what, Class<? extends Exception> type, Executable action) {
        try {
            action.execute();
        } catch (Throwable thrown) {
            // The refusal may come wrapped: an idempotent producer refused its producer id (ClusterAuthorizationException)
            // fails its sends with "in an error state", the refusal as the cause; which comes first is a matter of timing.
            for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
                if (type.isInstance(cause)) {
                    return;
                }
            }
            throw new AssertionError(what + ": expected " + type.getSimpleName() + ", got " + thrown, thrown);
        }
        fail(what + ": expected " + type.getSimpleName() + ", but the ACLs allowed it");
    }
}
