package io.statusaggregator.access;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewSpecBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.cache.CacheResult;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Who a bearer token belongs to and what they may do, asked of the API server as controller-runtime asks for its
 * metrics: a TokenReview, then a SubjectAccessReview. Answers are cached for a few seconds (the caches
 * {@code token-reviews} and {@code access-reviews}, see application.properties), so that a Prometheus scrape or a page's
 * requests cost the API server two reviews at most per interval, and a flood of made-up tokens is bounded in memory.
 *
 * <p>{@code run} decides whether requests are reviewed at all: against a real cluster they are (unless
 * {@code aggregator.access.review=false}); the embedded default, on loopback, is open. Until {@code run} has decided,
 * a request that needs a review is answered 503.
 */
@Singleton
public class AccessReviews {
    private static final Logger LOG = Logger.getLogger(AccessReviews.class);

    /** Thrown when the API server cannot answer a review now; the caller answers 503, not 401 or 403. */
    public static final class ReviewUnavailable extends RuntimeException {
        ReviewUnavailable(String message) {
            super(message, null, false, false);
        }
    }

    private enum Mode { STARTING, OPEN, REVIEWING }

    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

    private volatile Mode mode;
    private volatile KubernetesClient client;

    /** {@code review}: {@code aggregator.access.review}; false serves every request without a review from the start. */
    public AccessReviews(@ConfigProperty(name = "aggregator.access.review") Optional<Boolean> review) {
        this.mode = review.filter(reviewed -> !reviewed).isPresent() ? Mode.OPEN : Mode.STARTING;
    }

    /** Every request served without a review: the embedded default, or {@code aggregator.access.review=false}. */
    public void open() {
        mode = Mode.OPEN;
        close();
    }

    /**
     * Requests reviewed by the API server {@code client} talks to, with that client's account. The reviews' own
     * client does not retry and waits 5 s at most: a caller waiting on a review gets its 503 in seconds, not after
     * the client's backoff.
     */
    public void reviewWith(KubernetesClient client) {
        close();
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0).withRequestTimeout(5_000).withConnectionTimeout(5_000).build()).build();
        mode = Mode.REVIEWING;
    }

    @PreDestroy
    public void close() {
        KubernetesClient reviewer = client;
        client = null;
        if (reviewer != null) {
            reviewer.close();
        }
    }

    /** Whether requests are reviewed (or will be, once {@code run} has its client). */
    public boolean reviewing() {
        return mode != Mode.OPEN;
    }

    /** The user {@code token} authenticates as, or empty when the API server does not accept it. */
    @CacheResult(cacheName = "token-reviews")
    public Optional<KubernetesUser> authenticate(String token) {
        TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build();
        TokenReviewStatus status = ask("TokenReview", () -> reviewer().authentication().v1().tokenReviews().create(review)).getStatus();
        if (status == null || !Boolean.TRUE.equals(status.getAuthenticated()) || status.getUser() == null) {
            return Optional.empty();
        }
        UserInfo user = status.getUser();
        return Optional.of(new KubernetesUser(String.valueOf(user.getUsername()), Optional.ofNullable(user.getUid()).orElse(""),
                Optional.ofNullable(user.getGroups()).orElse(List.of()), Optional.ofNullable(user.getExtra()).orElse(Map.of())));
    }

    /** Whether the authorizer allows {@code user} {@code access} (an {@link RequiredAccess.OnResource} or {@link RequiredAccess.OnUrl}). */
    @CacheResult(cacheName = "access-reviews")
    public boolean allowed(KubernetesUser user, RequiredAccess access) {
        SubjectAccessReviewSpecBuilder spec = new SubjectAccessReviewSpecBuilder()
                .withUser(user.name()).withUid(user.uid()).withGroups(user.groups()).withExtra(user.extra());
        if (access instanceof RequiredAccess.OnResource resource) {
            spec.withNewResourceAttributes().withVerb(resource.verb()).withGroup(resource.group()).withResource(resource.resource())
                    .withNamespace(resource.namespace()).withName(resource.name()).endResourceAttributes();
        } else if (access instanceof RequiredAccess.OnUrl url) {
            spec.withNewNonResourceAttributes().withVerb(url.verb()).withPath(url.path()).endNonResourceAttributes();
        } else {
            return true;
        }
        SubjectAccessReview review = new SubjectAccessReviewBuilder().withSpec(spec.build()).build();
        SubjectAccessReview answer = ask("SubjectAccessReview", () -> reviewer().authorization().v1().subjectAccessReview().create(review));
        return answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed())
                && !Boolean.TRUE.equals(answer.getStatus().getDenied());
    }

    private KubernetesClient reviewer() {
        KubernetesClient reviewer = client;
        if (reviewer == null) {
            throw new ReviewUnavailable("the aggregator is starting");
        }
        return reviewer;
    }

    private static <T> T ask(String kind, Supplier<T> request) {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            // The status code only: the message can carry the API server's address. Once per 30 s: an outage is one line.
            long now = System.nanoTime();
            long last = lastWarning.get();
            if (now - last >= WARN_EVERY_NANOS && lastWarning.compareAndSet(last, now)) LOG.warnf("a %s failed (HTTP %d): requests that need one are answered 503 until the API server answers", kind, e.getCode());
            throw new ReviewUnavailable("the Kubernetes API did not answer a " + kind);
        }
    }
}
