package io.statusaggregator.embedded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.statusaggregator.model.json.UnreadableJson;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CRUD dispatcher with a JSON merge patch as RFC 7386 and a real API server apply it. Fabric8's own (7.5.2)
 * merges a patch with Jackson's readerForUpdating: it appends to lists instead of replacing them and keeps
 * {@code null} fields instead of removing them, so a status patch could never shorten {@code conditions} or
 * clear {@code failureReason}.
 */
final class MergePatchingDispatcher extends KubernetesCrudDispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** See {@link EmbeddedKubernetes#onRequest}. */
    volatile Consumer<RecordedRequest> listener;
    /** See {@link EmbeddedKubernetes#serveClusterStatus}; null: an EKS-A Cluster's status is kept whole. */
    volatile StatusSchema clusterStatus;

    /** The versions each kind is served at (see {@link ServedVersions}). */
    final ServedVersions served;

    MergePatchingDispatcher() {
        this(new ServedVersions(ServedVersions.V1BETA1_ONLY));
    }

    MergePatchingDispatcher(ServedVersions served) {
        super(ServedVersions.contexts());
        this.served = served;
        NamedObjects indexed = new NamedObjects();
        try {
            // Fabric8 keeps the store in a final field it fills itself; every change goes through put, remove and
            // clear.
            Field store = CrudDispatcher.class.getDeclaredField("map");
            store.setAccessible(true);
            store.set(this, Collections.synchronizedMap(indexed));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Fabric8 mock server keeps its objects where it did not: " + e, e);
        }
        named = indexed;
    }

    /**
     * The store, with its keys indexed by object name. Fabric8's dispatcher finds the object a write names by testing
     * every stored key, so each create, update and patch takes longer with every object stored: a fleet of 1,000
     * clusters would not load in minutes.
     */
    private final NamedObjects named;

    private static final class NamedObjects extends LinkedHashMap<AttributeSet, String> {
        private final Map<String, Set<AttributeSet>> byName = new ConcurrentHashMap<>();

        @Override
        public String put(AttributeSet key, String value) {
            String before = super.put(key, value);
            String name = nameOf(key);
            if (name != null) {
                byName.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(key);
            }
            return before;
        }

        @Override
        public String remove(Object key) {
            String before = super.remove(key);
            String name = before != null && key instanceof AttributeSet set ? nameOf(set) : null;
            if (name != null) {
                byName.computeIfPresent(name, (n, keys) -> {
                    keys.remove(key);
                    return keys.isEmpty() ? null : keys;
                });
            }
            return before;
        }

        @Override
        public void clear() {
            super.clear();
            byName.clear();
        }
    }

    /**
     * One object by name, from the index: Fabric8 would test every stored key. Anything else is Fabric8's to answer.
     */
    private Optional<MockResponse> named(String path) {
        AttributeSet query = getKey(path);
        return nameOf(query) == null ? Optional.empty() : Optional.ofNullable(findResource(query))
                .map(found -> new MockResponse().setResponseCode(200).setBody(found.getValue()));
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        String name = nameOf(query);
        if (name == null) {
            return super.findResource(query);
        }
        return stored(name, query).stream().findFirst().orElse(null);
    }

    /** The stored objects {@code query} selects, in the store's order. */
    private List<Map.Entry<AttributeSet, String>> stored(AttributeSet query) {
        synchronized (map) {
            return new ArrayList<>(map.entrySet().stream().filter(entry -> entry.getKey().matches(query))
                    .map(entry -> Map.entry(entry.getKey(), entry.getValue())).toList());
        }
    }

    /** The stored objects named {@code name} that {@code query} selects, found through the index. */
    private List<Map.Entry<AttributeSet, String>> stored(String name, AttributeSet query) {
        List<Map.Entry<AttributeSet, String>> found = new ArrayList<>(1);
        for (AttributeSet key : List.copyOf(named.byName.getOrDefault(name, Set.of()))) {
            String stored = map.get(key);
            if (stored != null && key.matches(query)) {
                found.add(Map.entry(key, stored));
            }
        }
        return found;
    }

    /**
     * Fabric8's lock on the store, and its deletion of one stored object (finalizers, the watch event): both private.
     */
    private static final Field LOCK;

    private static final Method PROCESS_DELETE;

    static {
        try {
            LOCK = KubernetesCrudDispatcher.class.getDeclaredField("lock");
            LOCK.setAccessible(true);
            PROCESS_DELETE = KubernetesCrudDispatcher.class.getDeclaredMethod(
                    "processDelete", String.class, AttributeSet.class, AttributeSet.class);
            PROCESS_DELETE.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Fabric8 mock server deletes objects in a way it did not: " + e, e);
        }
    }

    private ReadWriteLock lock() {
        try {
            return (ReadWriteLock) LOCK.get(this);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A DELETE of one object by name, found through the index; anything else is Fabric8's to answer. Fabric8 copies
     * and tests the whole store for each delete, under its write lock, on the server's one event loop: at 15,000
     * objects, the benchmark churn's Machine removals held every other request up for seconds.
     */
    @Override
    public MockResponse handleDelete(String path) {
        AttributeSet query = getKey(path);
        String name = nameOf(query);
        if (name == null) {
            return super.handleDelete(path);
        }
        Lock write = lock().writeLock();
        write.lock();
        try {
            List<Map.Entry<AttributeSet, String>> found = stored(name, query);
            for (Map.Entry<AttributeSet, String> entry : found) {
                PROCESS_DELETE.invoke(this, path, query, entry.getKey());
            }
            return found.isEmpty() ? new MockResponse().setResponseCode(404)
                    : new MockResponse().setResponseCode(200).setBody(found.get(0).getValue());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            write.unlock();
        }
    }

    /** The one name a key or query names exactly; null for none, several, or any. */
    private static String nameOf(AttributeSet key) {
        Attribute name = key.getAttribute(KubernetesAttributesExtractor.NAME);
        if (name == null || name.getType() != AttributeType.WITH || name.getValues().size() != 1) {
            return null;
        }
        String value = name.getValues().get(0).toString();
        return "*".equals(value) ? null : value;
    }

    /** See {@link EmbeddedKubernetes#answerInstead}. */
    volatile Function<RecordedRequest, MockResponse> fault;

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Consumer<RecordedRequest> told = listener;
        if (told != null) {
            told.accept(request);
        }
        Function<RecordedRequest, MockResponse> injected = fault;
        MockResponse instead = injected == null ? null : injected.apply(request);
        if (instead == null && served.refuses(request.getPath())) {
            instead = answer(statusOf(404, "NotFound", "the server could not find the requested resource"));
        }
        return instead != null ? instead : super.dispatch(request);
    }

    /**
     * A patch whatever its query: kubectl adds {@code ?fieldManager=kubectl-patch}, and Fabric8's handler then found no
     * object (a status patch answered 202 and changed nothing). The query's options (field manager, dry run) are not
     * served here.
     */
    @Override
    public MockResponse handlePatch(RecordedRequest request) {
        String path = request.getPath();
        int query = path.indexOf('?');
        return super.handlePatch(
                query < 0
                        ? request
                        : new RecordedRequest(
                                request.getHttpVersion(),
                                request.method(),
                                path.substring(0, query),
                                request.getHeaders(),
                                request.getBody()));
    }

    /**
     * A create whatever its query (kubectl adds {@code ?fieldManager=kubectl-create&fieldValidation=Strict}), and a
     * Namespace as a real API server makes one: read from the protobuf kubectl sends it in, Active, its finalizer and
     * its name label set. A protobuf body of another kind, which the mock server could not read and never answered,
     * is refused with the Status a server that does not take that encoding answers.
     */
    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        String path = request.getPath();
        String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        Headers.Builder headers = request.getHeaders().newBuilder();
        byte[] body = request.getBody().getBytes();
        if (String.valueOf(request.getHeader("Content-Type")).startsWith(ProtobufNamespace.MEDIA_TYPE)) {
            Optional<ObjectNode> namespace = ProtobufNamespace.read(body);
            if (namespace.isEmpty()) {
                return answer(statusOf(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                        + "format - accepted media types include: application/json, application/yaml"));
            }
            body = namespace.get().toString().getBytes(StandardCharsets.UTF_8);
            headers.set("Content-Type", "application/json");
        }
        if (bare.equals("/api/v1/namespaces")) {
            body = asCreated(body);
        }
        MockResponse answer = super.handleCreate(new RecordedRequest(request.getHttpVersion(), request.method(), bare,
                headers.build(), new Buffer(body)));
        // Typed: kubectl reads an answer without a Content-Type in the encoding it sent, protobuf here.
        return (answer.code() == 409 ? alreadyExists(bare, body, answer) : answer)
                .setHeader("Content-Type", "application/json");
    }

    /** What a real API server adds to a Namespace it creates; a body that is no JSON object is left to Fabric8. */
    private static byte[] asCreated(byte[] body) {
        try {
            if (!(JSON.readTree(body) instanceof ObjectNode namespace)) {
                return body;
            }
            ObjectNode metadata = namespace.withObjectProperty("metadata");
            if (metadata.path("name").isTextual()) {
                metadata.withObjectProperty("labels")
                        .put("kubernetes.io/metadata.name", metadata.path("name").asText());
            }
            namespace.withObjectProperty("spec").putArray("finalizers").add("kubernetes");
            namespace.withObjectProperty("status").put("phase", "Active");
            return JSON.writeValueAsBytes(namespace);
        } catch (IOException | UnsupportedOperationException e) {
            return body; // not a Namespace's shape: Fabric8 answers it as it would
        }
    }

    /** A failure's Status, as a real API server writes it. */
    private static ObjectNode statusOf(int code, String reason, String message) {
        ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1")
                .put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
        status.putObject("metadata");
        return status;
    }

    private static MockResponse answer(ObjectNode status) {
        return new MockResponse().setResponseCode(status.path("code").asInt())
                .setHeader("Content-Type", "application/json").setBody(status.toString());
    }

    /**
     * Discovery for the kinds served here, so that kubectl can find them (the mock server has none for CRDs); the
     * {@code v1} Events, the {@code events.k8s.io/v1} ones among them ({@link CoreEvents}); an object it does not hold
     * answered with a Status naming it, as a real API server does.
     */
    @Override
    public MockResponse handleGet(String path) {
        String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        MockResponse answer = Discovery.answer(bare, served)
                .map(body -> new MockResponse()
                        .setResponseCode(200)
                        .setHeader("Content-Type", "application/json")
                        .setBody(body))
                .or(() -> CoreEvents.answer(path, super::handleGet))
                .or(() -> bare.equals(path) ? named(path) : Optional.empty())
                .orElseGet(() -> super.handleGet(path));
        boolean empty = answer.getBody() == null || answer.getBody().size() == 0;
        return answer.code() == 404 && empty ? notFound(bare).orElse(answer) : answer;
    }

    /**
     * Deletions kept, so that a watch resumed from a version is told of those after it (see {@link ResumableWatches}).
     */
    private final ResumableWatches watches = new ResumableWatches();

    /** A deletion is stamped with a version of its own and kept; Fabric8 then removes it and tells the open watches. */
    @Override
    public void processEvent(
            String path,
            AttributeSet pathAttributes,
            AttributeSet oldAttributes,
            GenericKubernetesResource resource,
            String newState) {
        String existing = newState == null && oldAttributes != null ? map.get(oldAttributes) : null;
        if (existing != null) {
            map.put(oldAttributes, watches.deleted(oldAttributes, existing, requestResourceVersion()));
        }
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    }

    /**
     * A watch as a real API server makes it (see {@link ResumableWatches}); under Fabric8's read lock, from handleGet.
     */
    @Override
    public MockResponse handleWatch(String path) {
        OptionalLong from = ResumableWatches.fromVersion(path);
        AttributeSet selection = ResumableWatches.selection(getKey(path), path);
        if (from.isPresent() && watches.forgotten(selection, from.getAsLong())) {
            return ResumableWatches.expired(from.getAsLong());
        }
        MockResponse made = super.handleWatch(path);
        WebSocketListener dispatcherWatch = made.getWebSocketListener();
        if (dispatcherWatch == null) {
            return made;
        }
        List<String> deletions = from.isPresent() ? watches.deletedAfter(from.getAsLong(), selection) : List.of();
        String name = nameOf(selection);
        if (name != null || from.isPresent()) {
            // See WatchAnnouncement: by name through the index; from a version, only what changed since.
            List<Map.Entry<AttributeSet, String>> selected = name != null ? stored(name, selection) : stored(selection);
            if (from.isPresent()) {
                selected.removeIf(entry -> ResumableWatches.versionOf(entry.getValue()) <= from.getAsLong());
            }
            WatchAnnouncement.announce(dispatcherWatch, selected, lock().readLock());
        }
        return new MockResponse()
                .withWebSocketUpgrade(new ResumableWatches.OpenedWatch(dispatcherWatch, made, deletions));
    }

    /** {@code /api/v1[/namespaces/NS]/PLURAL/NAME} or {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL/NAME}. */
    private static final Pattern OBJECT_PATH =
            Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)/([^/]+)");

    /**
     * The Status a real API server answers a GET of an object it does not hold with: kubectl prints its message
     * ({@code Error from server (NotFound): clusters.anywhere.eks.amazonaws.com "bravo" not found}); without it,
     * kubectl could only say that the server found no such resource at all.
     */
    static Optional<MockResponse> notFound(String path) {
        Matcher object = OBJECT_PATH.matcher(path);
        return object.matches() ? Optional.of(objectStatus(404, "NotFound", object.group(1), object.group(2),
                object.group(3), "not found")) : Optional.empty();
    }

    /** {@code /api/v1[/namespaces/NS]/PLURAL} or {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL}. */
    private static final Pattern COLLECTION_PATH =
            Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)");

    /**
     * The Status a real API server answers a create of an object it already holds with, which kubectl prints
     * ({@code Error from server (AlreadyExists): namespaces "team-b" already exists}); Fabric8's 409 carries none.
     */
    private static MockResponse alreadyExists(String path, byte[] body, MockResponse answer) {
        Matcher collection = COLLECTION_PATH.matcher(path);
        String name;
        try {
            name = JSON.readTree(body).path("metadata").path("name").asText("");
        } catch (IOException e) {
            return answer;
        }
        return collection.matches() && !name.isEmpty() ? objectStatus(409, "AlreadyExists", collection.group(1),
                collection.group(2), name, "already exists") : answer;
    }

    private static MockResponse objectStatus(int code, String reason, String groupOrNull, String plural, String name,
            String what) {
        String group = Optional.ofNullable(groupOrNull).orElse("");
        String resource = group.isEmpty() ? plural : plural + "." + group;
        ObjectNode status = statusOf(code, reason, resource + " \"" + name + "\" " + what);
        status.putObject("details").put("name", name).put("group", group).put("kind", plural);
        return answer(status);
    }

    @Override
    public JsonNode merge(JsonNode baseResource, String patch) throws KubernetesCrudDispatcherException {
        try {
            JsonNode merged = mergePatch(baseResource, JSON.readTree(patch));
            return checkedClusterStatus(merged);
        } catch (JsonProcessingException e) {
            throw new KubernetesCrudDispatcherException("the patch is not JSON: " + UnreadableJson.problem(e), 422);
        }
    }

    /**
     * An EKS-A Cluster with its status pruned and checked by {@link #clusterStatus}, as the API server does on every
     * write; refused (422 Invalid) when the status breaks the schema.
     */
    private JsonNode checkedClusterStatus(JsonNode object) throws KubernetesCrudDispatcherException {
        StatusSchema statusSchema = clusterStatus;
        if (statusSchema == null || !(object instanceof ObjectNode cluster) || !isEksaCluster(cluster)) {
            return object;
        }
        List<String> invalid = statusSchema.apply(cluster);
        if (!invalid.isEmpty()) {
            throw new KubernetesCrudDispatcherException("Cluster.anywhere.eks.amazonaws.com \""
                    + cluster.path("metadata").path("name").asText() + "\" is invalid: "
                    + (invalid.size() == 1 ? invalid.get(0) : invalid.toString()), 422);
        }
        return cluster;
    }

    private static boolean isEksaCluster(JsonNode object) {
        return object.path("kind").asText().equals("Cluster")
                && object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/");
    }

    /** A status replaced whole (PUT {@code .../status}) is pruned and checked as a patched one is. */
    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
        if (clusterStatus == null || !request.getPath().startsWith("/apis/anywhere.eks.amazonaws.com/")
                || !request.getPath().contains("/status")) {
            return super.handleUpdate(request);
        }
        JsonNode checked;
        try {
            checked = checkedClusterStatus(JSON.readTree(request.getBody().getBytes()));
        } catch (IOException e) {
            return super.handleUpdate(request); // not JSON: Fabric8 answers it as it would
        } catch (KubernetesCrudDispatcherException e) {
            return answer(statusOf(e.getCode(), "Invalid", e.getMessage()));
        }
        return super.handleUpdate(new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                request.getHeaders(), new Buffer(checked.toString().getBytes(StandardCharsets.UTF_8))));
    }

    static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result =
                target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : JSON.createObjectNode();
        patch.properties().forEach(field -> {
            if (field.getValue().isNull()) {
                result.remove(field.getKey());
            } else {
                result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
            }
        });
        return result;
    }
}
