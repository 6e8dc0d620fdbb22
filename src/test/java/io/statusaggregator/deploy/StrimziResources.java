package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.smallrye.config.WithDefault;
import io.statusaggregator.AggregatorConfig;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.acl.AclOperation;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleClusterResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTransactionalIdResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The Strimzi resources of {@code deploy/kafka} read strictly into Strimzi's own API model ({@code io.strimzi:api}),
 * and what they must give the application, from its own defaults ({@link AggregatorConfig}, read by reflection): its
 * topics, its consumer groups, the ACLs each of its components needs. Checked as data by {@link StrimziResourcesTest},
 * and on a real broker by {@link StrimziAclsOnBrokerTest}.
 */
final class StrimziResources {
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
    static final String AGGREGATOR_USER = "status-aggregator";
    static final String ALERTS_USER = "status-aggregator-alerts";
    static final String SUBSCRIBER_USER = "feed-subscriber";
    static final String SUBSCRIBER_GROUP_PREFIX = "subscriber-";

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

    private StrimziResources() {
    }

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

    /** The topic a KafkaTopic declares: its spec.topicName, else the resource's name. */
    static String topicName(KafkaTopic topic) {
        return topic.getSpec().getTopicName() != null ? topic.getSpec().getTopicName() : topic.getMetadata().getName();
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
     * default name. A String without a default would be a topic the tests cannot name: it must get one.
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

    static int applicationPartitions() {
        return Integer.parseInt(defaults(AggregatorConfig.Topics.class).get("partitions"));
    }

    static String aggregatorGroup() {
        return defaults(AggregatorConfig.class).get("groupId");
    }

    static String alertsGroup() {
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

    /** The ACLs a KafkaUser is given, as the tests compare them; only allow rules, from any host. */
    static Set<Acl> aclsOf(KafkaUser user) {
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
}
