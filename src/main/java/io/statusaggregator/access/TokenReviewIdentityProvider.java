package io.statusaggregator.access;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** A bearer token becomes the user the API server's TokenReview says it is, or the request is not authenticated. */
@ApplicationScoped
public class TokenReviewIdentityProvider implements IdentityProvider<TokenAuthenticationRequest> {
    /** The identity's attribute holding the {@link KubernetesUser}, for the SubjectAccessReview. */
    static final String USER = KubernetesUser.class.getName();

    private final AccessReviews reviews;

    TokenReviewIdentityProvider(AccessReviews reviews) {
        this.reviews = reviews;
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(
            TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        return context.runBlocking(() -> reviews.authenticate(request.getToken().getToken())
                .map(user -> (SecurityIdentity) QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(user.name()))
                        .addAttribute(USER, user)
                        .build())
                .orElseThrow(() -> new AuthenticationFailedException("the API server does not accept this token")));
    }
}
