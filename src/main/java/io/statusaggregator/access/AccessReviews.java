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
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitException;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.temporal.ChronoUnit;
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
 * {@code token-reviews} and {@code access-reviews}, see application.properties), so that a Prometheus scrape or a
 * page's requests cost the API server two reviews at most per interval, and a flood of made-up tokens is bounded in
 * memory. Tokens not reviewed yet are reviewed at most {@code aggregator.access.token-reviews-per-second} a second (a
 * rate limit of SmallRye Fault Tolerance): beyond, a request is answered 429, so that a flood of made-up tokens
 * cannot make the aggregator's account flood the API server (whose priority and fairness would then hold back the
 * aggregator's own requests, its status writes among them).
 *
 * <p>{@code run} decides whether requests are reviewed at all: against a real cluster they are (unless
 * {@code aggregator.access.review=false}); the embedded default, on loopback, is open. Until {@code run} has decided,
 * a request that needs a review is answered 503.
 */
@Singleton
public class AccessReviews {
    private static final Logger LOG = Logger.getLogger(AccessReviews.class);

    /**
     * Thrown when a review cannot be had now; the caller answers {@link #status} with {@code Retry-After}, not 401 or
     * 403.
     */
    public static class ReviewUnavailable extends RuntimeException {
        private final long retryAfterSeconds;

        ReviewUnavailable(String message) {
            this(message, 5);
        }

        ReviewUnavailable(String message, long retryAfterSeconds) {
            super(message, null, false, false);
            this.retryAfterSeconds = retryAfterSeconds;
        }

        /** 503: the API server did not answer, or the aggregator is starting. */
        public int status() {
            return 503;
        }

        /** Seconds a client should wait before asking again. */
        public String retryAfter() {
            return String.valueOf(retryAfterSeconds);
        }
    }

    /** Thrown when more new tokens came than may be reviewed: 429, try again in a second or so. */
    public static final class TooManyReviews extends ReviewUnavailable {
        TooManyReviews(long retryAfterMillis) {
            super("too many tokens to review", Math.max(1, (retryAfterMillis + 999) / 1000));
        }

        @Override
        public int status() {
            return 429;
        }
    }

    private enum Mode { STARTING, OPEN, REVIEWING }

    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

    private volatile Mode mode;
    private volatile KubernetesClient client;
    /** The rate of TokenReviews of tokens not in the cache. */
    private final Guard newTokens;

    /**
     * {@code review}: {@code aggregator.access.review}; false serves every request without a review from the start.
     * {@code tokenReviewsPerSecond}: {@code aggregator.access.token-reviews-per-second} (which {@code run} holds to 1
     * at least).
     */
    @Inject
    public AccessReviews(
            @ConfigProperty(name = "aggregator.access.review") Optional<Boolean> review,
            @ConfigProperty(name = "aggregator.access.token-reviews-per-second", defaultValue = "20")
                    int tokenReviewsPerSecond) {
        this(
                review,
                Guard.create()
                        .withDescription("token reviews")
                        .withRateLimit()
                        .limit(Math.max(1, tokenReviewsPerSecond))
                        .window(1, ChronoUnit.SECONDS)
                        .done()
                        .build());
    }

    /** With {@code newTokens} holding the TokenReviews of tokens not in the cache to their rate. */
    public AccessReviews(Optional<Boolean> review, Guard newTokens) {
        this.mode = review.filter(reviewed -> !reviewed).isPresent() ? Mode.OPEN : Mode.STARTING;
        this.newTokens = newTokens;
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
        this.client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration())
                        .withRequestRetryBackoffLimit(0)
                        .withRequestTimeout(5_000)
                        .withConnectionTimeout(5_000)
                        .build())
                .build();
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

    /**
     * Why a request without a token cannot be judged yet, while {@code run} has not decided whether requests are
     * reviewed (the embedded default serves them open): empty once it has.
     */
    Optional<ReviewUnavailable> undecided() {
        return mode == Mode.STARTING
                ? Optional.of(new ReviewUnavailable("the aggregator is starting", 1))
                : Optional.empty();
    }

    /** The user {@code token} authenticates as, or empty when the API server does not accept it. */
    @CacheResult(cacheName = "token-reviews")
    public Optional<KubernetesUser> authenticate(String token) {
        TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build();
        TokenReviewStatus status;
        try {
            status = newTokens
                    .get(
                            () -> ask("TokenReview", () -> reviewer()
                                    .authentication()
                                    .v1()
                                    .tokenReviews()
                                    .create(review)),
                            TokenReview.class)
                    .getStatus();
        } catch (RateLimitException e) {
            throw new TooManyReviews(e.getRetryAfterMillis());
        }
        if (status == null || !Boolean.TRUE.equals(status.getAuthenticated()) || status.getUser() == null) {
            return Optional.empty();
        }
        UserInfo user = status.getUser();
        return Optional.of(new KubernetesUser(
                String.valueOf(user.getUsername()),
                Optional.ofNullable(user.getUid()).orElse(""),
                Optional.ofNullable(user.getGroups()).orElse(List.of()),
                Optional.ofNullable(user.getExtra()).orElse(Map.of())));
    }

    /**
     * Whether the authorizer allows {@code user} {@code access} (an {@link RequiredAccess.OnResource} or
     * {@link RequiredAccess.OnUrl}).
     */
    @CacheResult(cacheName = "access-reviews")
    public boolean allowed(KubernetesUser user, RequiredAccess access) {
        SubjectAccessReviewSpecBuilder spec = new SubjectAccessReviewSpecBuilder()
                .withUser(user.name()).withUid(user.uid()).withGroups(user.groups()).withExtra(user.extra());
        if (access instanceof RequiredAccess.OnResource resource) {
            spec.withNewResourceAttributes()
                    .withVerb(resource.verb())
                    .withGroup(resource.group())
                    .withResource(resource.resource())
                    .withNamespace(resource.namespace())
                    .withName(resource.name())
                    .endResourceAttributes();
        } else if (access instanceof RequiredAccess.OnUrl url) {
            spec.withNewNonResourceAttributes().withVerb(url.verb()).withPath(url.path()).endNonResourceAttributes();
        } else {
            return true;
        }
        SubjectAccessReview review = new SubjectAccessReviewBuilder().withSpec(spec.build()).build();
        SubjectAccessReview answer = ask(
                "SubjectAccessReview",
                () -> reviewer().authorization().v1().subjectAccessReview().create(review));
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
            // The status code only: the message can carry the API server's address. Once per 30 s: an outage is one
            // line.
            long now = System.nanoTime();
            long last = lastWarning.get();
            if (now - last >= WARN_EVERY_NANOS && lastWarning.compareAndSet(last, now))
                LOG.warnf(
                        "a %s failed (HTTP %d): requests that need one are answered 503 until the API server answers",
                        kind, e.getCode());
            throw new ReviewUnavailable("the Kubernetes API did not answer a " + kind);
        }
    }
}
