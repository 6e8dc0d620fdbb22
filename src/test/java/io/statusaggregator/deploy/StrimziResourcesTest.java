package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.smallrye.config.WithDefault;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.feeds.AlertBridge;
import io.statusaggregator.ingest.CompactedTopic;
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
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleClusterResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTransactionalIdResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;
import io.strimzi.api.kafka.model.user.acl.AclOperation;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
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
 * The Strimzi resources of {@code deploy/kafka} read into Strimzi's own API model ({@code io.strimzi:api}): a field
 * Strimzi does not know (or deprecates: what its v1 API removed), a value it cannot take, or a topic the application
 * uses that {@code deploy/kafka} lacks, fails the build. The topics and consumer groups expected are the application's own defaults
 * ({@link AggregatorConfig}), read here by reflection, so that a topic added to the application without its
 * {@code KafkaTopic} cannot pass.
 *
 * <p>The ACLs are checked twice: as data (each user has exactly the ACLs its component needs), and on a real broker
 * (in process, with Kafka's {@code StandardAuthorizer}, the one Strimzi's {@code simple} authorization configures),
 * where each user, given the ACLs of its {@code KafkaUser}, does its component's work (the alert bridge runs for real)
 * and is refused the rest.
 */
class StrimziResourcesTest {
    private static final Path DIR = Path.of("deploy", "kafka");
    private static final List<String> FILES = List.of("kafka.yaml", "topics.yaml", "users.yaml");
    /**
     * The API version deploy/kafka is written in: served from Strimzi 0.49 on, the only one from 1.0 on. The model of
     * io.strimzi:api 0.51 holds v1beta2 and v1 alike; what v1 removed is what v1beta2 deprecated, so a deprecated
     * property is refused (see {@link #strictMapper()}).
     */
    private static final String API_VERSION = "kafka.strimzi.io/v1";
    private static final String API_GROUP = "kafka.strimzi.io";
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "Kafka", Kafka.class, "KafkaNodePool", KafkaNodePool.class, "KafkaTopic", KafkaTopic.class, "KafkaUser", KafkaUser.class);

    /** The users of users.yaml, by component. */
    private static final String AGGREGATOR_USER = "status-aggregator";
    private static final String ALERTS_USER = "status-aggregator-alerts";
    private static final String SUBSCRIBER_USER = "feed-subscriber";
    private static final String SUBSCRIBER_GROUP_PREFIX = "subscriber-";

    private static final ObjectMapper STRICT = strictMapper();
    /**
     * Writes every property of a model object, defaults and nulls included, whatever its {@code @JsonInclude} says:
     * what the model made of a document, to compare with the document.
     */
    private static final ObjectMapper EVERYTHING = new ObjectMapper()
            .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public JsonInclude.Value findPropertyInclusion(Annotated annotated) {
                    return JsonInclude.Value.construct(JsonInclude.Include.ALWAYS, JsonInclude.Include.ALWAYS);
                }
            })
            .setDefaultPropertyInclusion(JsonInclude.Include.ALWAYS);

    // ---------------------------------------------------------------------------------------------------------
    // Reading

    /**
     * Jackson as strict as a validating API server: unknown fields fail, also where Strimzi's and Fabric8's classes
     * would keep them aside (their {@code @JsonAnySetter additionalProperties}, which would otherwise swallow any
     * misspelt field silently) or ignore them, and so does a key given twice in one mapping. A property the model
     * marks deprecated fails too: Strimzi's v1 API is v1beta2 without its deprecated properties
     * ({@code spec.kafka.replicas}, {@code acls[].operation}, ...), and the model carries both.
     */
    private static ObjectMapper strictMapper() {
        SimpleModule strict = new SimpleModule("strict");
        strict.setDeserializerModifier(new BeanDeserializerModifier() {
            @Override
            public BeanDeserializerBuilder updateBuilder(DeserializationConfig config, BeanDescription description, BeanDeserializerBuilder builder) {
                builder.setAnySetter(null);
                builder.setIgnoreUnknownProperties(false);
                Set<String> deprecated = description.findProperties().stream()
                        .filter(property -> Stream.of(property.getGetter(), property.getSetter(), property.getField())
                                .anyMatch(member -> member != null && member.hasAnnotation(Deprecated.class)))
                        .map(BeanPropertyDefinition::getName)
                        .collect(Collectors.toSet());
                List<SettableBeanProperty> refused = new ArrayList<>();
                builder.getProperties().forEachRemaining(property -> {
                    if (deprecated.contains(property.getName())) {
                        refused.add(property);
                    }
                });
                refused.forEach(property -> builder.addOrReplaceProperty(new DeprecatedProperty(property, description.getBeanClass()), true));
                return builder;
            }
        });
        return new ObjectMapper(new YAMLFactory())
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .registerModule(strict);
    }

    /** A property that Strimzi's model deprecates: refused where it is given. */
    private static final class DeprecatedProperty extends SettableBeanProperty.Delegating {
        private final Class<?> owner;

        DeprecatedProperty(SettableBeanProperty property, Class<?> owner) {
            super(property);
            this.owner = owner;
        }

        @Override
        protected SettableBeanProperty withDelegate(SettableBeanProperty delegate) {
            return new DeprecatedProperty(delegate, owner);
        }

        @Override
        public void deserializeAndSet(JsonParser parser, DeserializationContext context, Object instance) throws IOException {
            throw refused(parser);
        }

        @Override
        public Object deserializeSetAndReturn(JsonParser parser, DeserializationContext context, Object instance) throws IOException {
            throw refused(parser);
        }

        private JsonMappingException refused(JsonParser parser) {
            return JsonMappingException.from(parser, "\"" + getName() + "\" is deprecated in Strimzi's " + owner.getSimpleName()
                    + " (not in the " + API_VERSION + " API)");
        }
    }

    /** Every resource of deploy/kafka, by kind, in file order. */
    record Resources(List<Kafka> kafkas, List<KafkaNodePool> pools, List<KafkaTopic> topics, List<KafkaUser> users) {
        List<HasMetadata> all() {
            return Stream.of(kafkas, pools, topics, users).flatMap(List::stream).map(HasMetadata.class::cast).toList();
        }
    }

    static Resources readDeployKafka() throws IOException {
        List<HasMetadata> all = new ArrayList<>();
        for (String file : FILES) {
            Path path = DIR.resolve(file);
            assertTrue(Files.isRegularFile(path), path + " is missing (the test runs from the project's directory)");
            all.addAll(readAll(Files.readString(path), path.toString()));
        }
        return new Resources(only(all, Kafka.class), only(all, KafkaNodePool.class), only(all, KafkaTopic.class), only(all, KafkaUser.class));
    }

    private static <T> List<T> only(List<HasMetadata> all, Class<T> type) {
        return all.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Every document of a multi-document YAML text, each read strictly into the Strimzi class of its kind. */
    static List<HasMetadata> readAll(String yaml, String source) throws IOException {
        List<HasMetadata> resources = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = STRICT.readerFor(JsonNode.class).readValues(yaml)) {
            int index = 0;
            while (true) {
                JsonNode document;
                try {
                    if (!documents.hasNextValue()) {
                        break;
                    }
                    document = documents.nextValue();
                } catch (IOException e) {
                    throw new AssertionError(source + ", document " + (index + 1) + ": not valid YAML for Kubernetes: " + e.getMessage(), e);
                }
                index++;
                if (document == null || document.isNull() || document.isMissingNode() || document.isEmpty()) {
                    continue;
                }
                resources.add(read(document, source + ", document " + index));
            }
        }
        return resources;
    }

    private static HasMetadata read(JsonNode document, String where) {
        String kind = document.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
            throw new AssertionError(where + ": kind \"" + kind + "\" is not one of " + new TreeSet<>(KINDS.keySet()));
        }
        assertEquals(API_GROUP, HasMetadata.getGroup(type), "the Strimzi API model on the classpath");
        String apiVersion = document.path("apiVersion").asText();
        if (!API_VERSION.equals(apiVersion)) {
            throw new AssertionError(where + " (" + kind + "): apiVersion must be " + API_VERSION + ", got \"" + apiVersion + "\"");
        }
        HasMetadata resource;
        try {
            resource = STRICT.treeToValue(document, type);
        } catch (JsonMappingException e) {
            String at = e.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            throw new AssertionError(where + " (" + kind + "): not a valid Strimzi " + kind + " at " + at + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new AssertionError(where + " (" + kind + "): not a valid Strimzi " + kind + ": " + e.getMessage(), e);
        }
        // What the model makes of the document must say everything the document says: an enum value Strimzi does
        // not know reads as null (its forValue returns null), a value of the wrong shape may be coerced.
        List<String> lost = new ArrayList<>();
        compare(document, EVERYTHING.valueToTree(resource), "", lost);
        if (!lost.isEmpty()) {
            throw new AssertionError(where + " (" + kind + " " + resource.getMetadata().getName() + "): Strimzi's model does not keep "
                    + String.join("; ", lost));
        }
        return resource;
    }

    /** Adds to {@code lost} every value of {@code written} that {@code read} does not hold as written. */
    private static void compare(JsonNode written, JsonNode read, String path, List<String> lost) {
        if (written.isObject()) {
            if (!read.isObject()) {
                lost.add(path + ": " + written + " became " + read);
                return;
            }
            written.fields().forEachRemaining(field -> {
                String at = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                if (at.equals("apiVersion")) {
                    // Checked as written above; the model writes the version its class is annotated with.
                    return;
                }
                if (!read.has(field.getKey()) || read.get(field.getKey()).isNull() && !field.getValue().isNull()) {
                    lost.add(at + " (" + field.getValue() + ")");
                } else {
                    compare(field.getValue(), read.get(field.getKey()), at, lost);
                }
            });
        } else if (written.isArray()) {
            if (!read.isArray() || read.size() != written.size()) {
                lost.add(path + ": " + written + " became " + read);
                return;
            }
            for (int i = 0; i < written.size(); i++) {
                compare(written.get(i), read.get(i), path + "[" + i + "]", lost);
            }
        } else if (written.isNumber() && read.isNumber() ? written.decimalValue().compareTo(read.decimalValue()) != 0 : !written.equals(read)) {
            lost.add(path + ": " + written + " became " + read);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // What the application uses, from its own defaults

    /** The @WithDefault of each method of a config interface, by method name. */
    private static Map<String, String> defaults(Class<?> config) {
        Map<String, String> defaults = new TreeMap<>();
        for (Method method : config.getDeclaredMethods()) {
            WithDefault value = method.getAnnotation(WithDefault.class);
            if (value != null) {
                defaults.put(method.getName(), value.value());
            }
        }
        return defaults;
    }

    /**
     * The application's topics: every String-valued key of {@code aggregator.topics}, by accessor name, with its
     * default name. A String without a default would be a topic this test cannot name: it must get one.
     */
    static Map<String, String> applicationTopics() {
        Map<String, String> defaults = defaults(AggregatorConfig.Topics.class);
        Map<String, String> topics = new TreeMap<>();
        for (Method method : AggregatorConfig.Topics.class.getDeclaredMethods()) {
            if (method.getReturnType() == String.class) {
                String name = defaults.get(method.getName());
                assertNotNull(name, "AggregatorConfig.Topics." + method.getName() + "() names a topic without a default");
                topics.put(method.getName(), name);
            }
        }
        assertFalse(topics.isEmpty(), "no topic found in AggregatorConfig.Topics");
        return topics;
    }

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

    private static int applicationPartitions() {
        return Integer.parseInt(defaults(AggregatorConfig.Topics.class).get("partitions"));
    }

    private static String aggregatorGroup() {
        return defaults(AggregatorConfig.class).get("groupId");
    }

    private static String alertsGroup() {
        return defaults(AggregatorConfig.Alerts.class).get("groupId");
    }

    /** An ACL as the tests compare them: one operation on one resource pattern, allowed from any host. */
    record Acl(String resourceType, String name, String patternType, String operation) implements Comparable<Acl> {
        @Override
        public int compareTo(Acl other) {
            return toString().compareTo(other.toString());
        }

        @Override
        public String toString() {
            return resourceType + ":" + name + (patternType.equals("literal") ? "" : "*") + " " + operation;
        }
    }

    private static Set<Acl> acls(String type, String name, String pattern, String... operations) {
        return Arrays.stream(operations).map(op -> new Acl(type, name, pattern, op)).collect(Collectors.toSet());
    }

    @SafeVarargs
    private static Set<Acl> union(Set<Acl>... sets) {
        return Stream.of(sets).flatMap(Set::stream).collect(Collectors.toCollection(TreeSet::new));
    }

    /** What each component needs, from the application's topics and groups. */
    static Map<String, Set<Acl>> neededAcls() {
        Map<String, String> topics = applicationTopics();
        String objectStates = topics.get("objectStates");
        String statuses = topics.get("statuses");
        String transitions = topics.get("transitions");
        String deadLetters = topics.get("deadLetters");
        Map<String, Set<Acl>> needed = new TreeMap<>();
        // Ingest writes object states and reads them again (vanished objects); aggregation reads them in its group;
        // the feeds are written, and read back (published statuses at start, the fleet page). Nothing else: the topics
        // exist (no Create), an idempotent producer needs Write on a topic only (no cluster IdempotentWrite).
        needed.put(AGGREGATOR_USER, union(
                acls("topic", objectStates, "literal", "Read", "Write", "Describe"),
                acls("topic", statuses, "literal", "Read", "Write", "Describe"),
                acls("topic", transitions, "literal", "Read", "Write", "Describe"),
                // Aggregation sends there what it cannot use; nothing of the application reads it back.
                acls("topic", deadLetters, "literal", "Write", "Describe"),
                acls("group", aggregatorGroup(), "literal", "Read")));
        needed.put(ALERTS_USER, union(
                acls("topic", transitions, "literal", "Read", "Describe"),
                acls("group", alertsGroup(), "literal", "Read")));
        needed.put(SUBSCRIBER_USER, union(
                acls("topic", statuses, "literal", "Read", "Describe"),
                acls("topic", transitions, "literal", "Read", "Describe"),
                acls("group", SUBSCRIBER_GROUP_PREFIX, "prefix", "Read")));
        return needed;
    }

    private static Set<Acl> aclsOf(KafkaUser user) {
        KafkaUserAuthorizationSimple authorization = assertInstanceOf(KafkaUserAuthorizationSimple.class, user.getSpec().getAuthorization(),
                "KafkaUser " + user.getMetadata().getName() + ": authorization must be simple");
        Set<Acl> acls = new TreeSet<>();
        for (AclRule rule : authorization.getAcls()) {
            String where = "KafkaUser " + user.getMetadata().getName() + ", ACL " + rule.getResource();
            assertTrue(rule.getType() == null || rule.getType() == AclRuleType.ALLOW, where + ": only allow rules (everything else is denied)");
            assertTrue(rule.getHost() == null || rule.getHost().equals("*"), where + ": host must be any (*)");
            assertNotNull(rule.getOperations(), where + ": no operations");
            for (AclOperation operation : rule.getOperations()) {
                assertNotNull(operation, where + ": an operation Strimzi does not know");
                acls.add(acl(rule, operation, where));
            }
        }
        return acls;
    }

    private static Acl acl(AclRule rule, AclOperation operation, String where) {
        if (rule.getResource() instanceof AclRuleTopicResource topic) {
            return new Acl("topic", topic.getName(), pattern(topic.getPatternType()), operation.toValue());
        } else if (rule.getResource() instanceof AclRuleGroupResource group) {
            return new Acl("group", group.getName(), pattern(group.getPatternType()), operation.toValue());
        } else if (rule.getResource() instanceof AclRuleTransactionalIdResource id) {
            return new Acl("transactionalId", id.getName(), pattern(id.getPatternType()), operation.toValue());
        } else if (rule.getResource() instanceof AclRuleClusterResource) {
            return new Acl("cluster", "kafka-cluster", "literal", operation.toValue());
        }
        throw new AssertionError(where + ": unexpected resource");
    }

    private static String pattern(AclResourcePatternType type) {
        return type == null || type == AclResourcePatternType.LITERAL ? "literal" : "prefix";
    }

    // ---------------------------------------------------------------------------------------------------------
    // The resources, as data

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

    private static String topicName(KafkaTopic topic) {
        return topic.getSpec().getTopicName() != null ? topic.getSpec().getTopicName() : topic.getMetadata().getName();
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

    // ---------------------------------------------------------------------------------------------------------
    // The ACLs on a real broker

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
