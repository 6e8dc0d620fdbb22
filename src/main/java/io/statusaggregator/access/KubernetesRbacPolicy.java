package io.statusaggregator.access;

import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.HttpSecurityPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Every request on both ports passes here (application.properties maps every path to this policy): what it needs
 * comes from {@link RequiredAccess#of}, and the Kubernetes authorizer decides through a SubjectAccessReview. A
 * request without a user is challenged by {@link KubernetesTokenMechanism} (503 while it is not decided yet whether
 * requests are reviewed); a user the authorizer refuses gets 403.
 */
@ApplicationScoped
public class KubernetesRbacPolicy implements HttpSecurityPolicy {
    public static final String NAME = "kubernetes-rbac";

    private final AccessReviews reviews;

    KubernetesRbacPolicy(AccessReviews reviews) {
        this.reviews = reviews;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Uni<CheckResult> checkPermission(
            RoutingContext request, Uni<SecurityIdentity> identity, AuthorizationRequestContext context) {
        if (!reviews.reviewing()) {
            return CheckResult.permit();
        }
        RequiredAccess access = RequiredAccess.of(request.normalizedPath());
        if (access instanceof RequiredAccess.Open) {
            return CheckResult.permit();
        }
        if (access instanceof RequiredAccess.Nobody) {
            return CheckResult.deny();
        }
        return context.runBlocking(request, identity, (ignored, user) -> {
            if (user.isAnonymous()) {
                // Still starting: whether this route needs a token at all is not known yet (503, not a challenge that
                // would send a browser to sign in where the embedded default asks for nothing).
                reviews.undecided().ifPresent(starting -> request.put(KubernetesTokenMechanism.UNAVAILABLE, starting));
                return CheckResult.DENY;
            }
            KubernetesUser kubernetesUser = user.getAttribute(TokenReviewIdentityProvider.USER);
            try {
                return kubernetesUser != null && reviews.allowed(kubernetesUser, access)
                        ? CheckResult.PERMIT
                        : CheckResult.DENY;
            } catch (AccessReviews.ReviewUnavailable unavailable) {
                // Denied as to nobody, so that the mechanism's challenge answers (503, see UNAVAILABLE), not a 403
                // that would tell the user they may not.
                request.put(KubernetesTokenMechanism.UNAVAILABLE, unavailable);
                return new CheckResult(
                        false,
                        QuarkusSecurityIdentity.builder().setAnonymous(true).build());
            }
        });
    }
}
