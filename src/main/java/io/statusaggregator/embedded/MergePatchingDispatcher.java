package io.statusaggregator.embedded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.mockwebserver.crud.AttributeSet;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The embedded API server's dispatcher: Fabric8's CRUD dispatcher, answering as a real API server does where it
 * does not. A JSON merge patch applied as RFC 7386 says ({@link MergePatch}); an EKS-A Cluster's status checked
 * against its schema ({@link StatusSchema}); one object by name found through an index of the store
 * ({@link NamedObjects}); failures answered with a Status ({@link FailureStatus}); discovery, Events, protobuf
 * Namespaces and watches resumed from a version.
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
        named = NamedObjects.installIn(this);
    }

    /** The store, with its keys indexed by object name (see {@link NamedObjects}). */
    private final NamedObjects named;

    /**
     * One object by name, from the index: Fabric8 would test every stored key. Anything else is Fabric8's to answer.
     */
    private Optional<MockResponse> named(String path) {
        AttributeSet query = getKey(path);
        return NamedObjects.nameOf(query) == null ? Optional.empty() : Optional.ofNullable(findResource(query))
                .map(found -> new MockResponse().setResponseCode(200).setBody(found.getValue()));
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        String name = NamedObjects.nameOf(query);
        if (name == null) {
            return super.findResource(query);
        }
        return named.stored(name, query).stream().findFirst().orElse(null);
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
        String name = NamedObjects.nameOf(query);
        if (name == null) {
            return super.handleDelete(path);
        }
        Lock write = lock().writeLock();
        write.lock();
        try {
            List<Map.Entry<AttributeSet, String>> found = named.stored(name, query);
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
            instead = FailureStatus.answer(404, "NotFound", "the server could not find the requested resource");
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
                return FailureStatus.answer(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                        + "format - accepted media types include: application/json, application/yaml");
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
        return (answer.code() == 409 ? FailureStatus.alreadyExists(bare, body, answer) : answer)
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
        return answer.code() == 404 && empty ? FailureStatus.notFound(bare).orElse(answer) : answer;
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
        String name = NamedObjects.nameOf(selection);
        if (name != null || from.isPresent()) {
            // See WatchAnnouncement: by name through the index; from a version, only what changed since.
            List<Map.Entry<AttributeSet, String>> selected =
                    name != null ? named.stored(name, selection) : named.stored(selection);
            if (from.isPresent()) {
                selected.removeIf(entry -> ResumableWatches.versionOf(entry.getValue()) <= from.getAsLong());
            }
            WatchAnnouncement.announce(dispatcherWatch, selected, lock().readLock());
        }
        return new MockResponse()
                .withWebSocketUpgrade(new ResumableWatches.OpenedWatch(dispatcherWatch, made, deletions));
    }

    @Override
    public JsonNode merge(JsonNode baseResource, String patch) throws KubernetesCrudDispatcherException {
        try {
            JsonNode merged = MergePatch.apply(baseResource, JSON.readTree(patch));
            return checkedClusterStatus(merged);
        } catch (JsonProcessingException e) {
            throw new KubernetesCrudDispatcherException("the patch is not JSON: " + UnreadableJson.problem(e), 422);
        }
    }

    /**
     * An EKS-A Cluster with its status pruned and checked by {@link #clusterStatus}, as the API server does on every
     * write (see {@link StatusSchema#checkedCluster}).
     */
    private JsonNode checkedClusterStatus(JsonNode object) throws KubernetesCrudDispatcherException {
        StatusSchema statusSchema = clusterStatus;
        return statusSchema == null ? object : statusSchema.checkedCluster(object);
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
            return FailureStatus.answer(e.getCode(), "Invalid", e.getMessage());
        }
        return super.handleUpdate(new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                request.getHeaders(), new Buffer(checked.toString().getBytes(StandardCharsets.UTF_8))));
    }
}
