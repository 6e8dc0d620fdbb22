package io.statusaggregator.access;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds a Kubernetes bearer token on a request: the {@code Authorization: Bearer} header (Prometheus, curl, scripts),
 * or the cookie {@link #COOKIE} the sign-in page sets for a browser. The token is checked by
 * {@link TokenReviewIdentityProvider}. A request without one, for a route that needs one, is challenged: a browser
 * asking for a page is sent to the sign-in page, anything else gets 401 with {@code WWW-Authenticate: Bearer}.
 */
@ApplicationScoped
public class KubernetesTokenMechanism implements HttpAuthenticationMechanism {
    /** The browser's copy of the token it signed in with: HttpOnly, SameSite=Strict, Secure over HTTPS. */
    public static final String COOKIE = "status-aggregator-token";
    public static final String SIGN_IN_PATH = "/sign-in";
    /**
     * Set on the request (the {@link AccessReviews.ReviewUnavailable}) when it could not be reviewed: the challenge is
     * then its 503 or 429, not 401.
     */
    static final String UNAVAILABLE = AccessReviews.ReviewUnavailable.class.getName();

    private static final int MAX_TOKEN_LENGTH = 16 * 1024;

    private final AccessReviews reviews;

    KubernetesTokenMechanism(AccessReviews reviews) {
        this.reviews = reviews;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        if (!reviews.reviewing()) {
            return Uni.createFrom().nullItem();
        }
        Optional<String> token = token(context);
        if (token.isEmpty()) {
            return Uni.createFrom().nullItem();
        }
        TokenAuthenticationRequest request = new TokenAuthenticationRequest(new TokenCredential(token.get(), "bearer"));
        return identities.authenticate(HttpSecurityUtils.setRoutingContextAttribute(request, context))
                .onFailure(AccessReviews.ReviewUnavailable.class).transform(unavailable -> {
                    context.put(UNAVAILABLE, unavailable);
                    return new AuthenticationFailedException(unavailable.getMessage());
                });
    }

    /** The token the request carries, the header first; empty when none, or one no token could be. */
    static Optional<String> token(RoutingContext context) {
        String header = context.request().getHeader(HttpHeaders.AUTHORIZATION);
        String token = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = header.substring(7).trim();
        } else {
            Cookie cookie = context.request().getCookie(COOKIE);
            if (cookie != null) {
                token = cookie.getValue();
            }
        }
        return plausible(token) ? Optional.of(token) : Optional.empty();
    }

    /** Whether {@code token} could be a bearer token at all: not empty, not huge, printable ASCII without spaces. */
    static boolean plausible(String token) {
        return token != null
                && !token.isEmpty()
                && token.length() <= MAX_TOKEN_LENGTH
                && token.chars().allMatch(c -> c > 0x20 && c < 0x7f);
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        if (context.get(UNAVAILABLE) instanceof AccessReviews.ReviewUnavailable unavailable) {
            return Uni.createFrom()
                    .item(new ChallengeData(unavailable.status(), Map.of("Retry-After", unavailable.retryAfter())));
        }
        if (wantsPage(context)) {
            return Uni.createFrom().item(new ChallengeData(303, HttpHeaders.LOCATION, SIGN_IN_PATH));
        }
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer realm=\"status-aggregator\""));
    }

    /** A browser navigating (it asks for HTML), as opposed to a script or the page's own requests. */
    private static boolean wantsPage(RoutingContext context) {
        String accept = context.request().getHeader(HttpHeaders.ACCEPT);
        return context.request().method().name().equals("GET") && accept != null && accept.contains("text/html");
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(TokenAuthenticationRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }
}
