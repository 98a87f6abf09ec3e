package dev.baton;

import dev.baton.retry.RetryPolicy;
import dev.baton.state.ConnectionStateErrorPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

/** A client's options, copied out of the builder. */
record ClientConfig(
        EnsembleProvider ensembleProvider,
        Duration sessionTimeout,
        Duration connectionTimeout,
        RetryPolicy retryPolicy,
        String namespace,
        ACLProvider aclProvider,
        List<AuthInfo> authInfos,
        CompressionProvider compressionProvider,
        boolean compressionEnabled,
        boolean canBeReadOnly,
        ConnectionStateErrorPolicy errorPolicy,
        int simulatedExpirationPercent,
        @Nullable ThreadFactory threadFactory,
        @Nullable ZKClientConfig zkClientConfig,
        boolean ensembleTracker) {
}
