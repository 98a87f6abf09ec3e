package dev.baton;

import dev.baton.internal.Failures;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

final class DeleteBuilderImpl extends OpBuilder<Void> implements DeleteBuilder {
    private boolean guaranteed;
    private boolean children;
    private boolean quietly;
    private int version = -1;

    DeleteBuilderImpl(DefaultBatonClient client) {
        super(client);
    }

    @Override
    public DeleteBuilder guaranteed() {
        guaranteed = true;
        return this;
    }

    @Override
    public DeleteBuilder deletingChildrenIfNeeded() {
        children = true;
        return this;
    }

    @Override
    public DeleteBuilder withVersion(int version) {
        this.version = version;
        return this;
    }

    @Override
    public DeleteBuilder quietly() {
        quietly = true;
        return this;
    }

    @Override
    CompletableFuture<Void> run(Exec exec, String path, byte @Nullable [] data) {
        String full = client.fullPath(path, false);
        CompletableFuture<Void> deleted = delete(exec, full, path);
        if (quietly) {
            deleted = Deletes.ignoringNoNode(deleted);
        }
        if (guaranteed) {
            deleted = deleted.whenComplete((v, error) -> {
                if (error != null && Failures.isConnectionProblem(error)) {
                    Exec background = client.core().exec(false);
                    client.core().retrier().submit("guaranteed delete of " + full,
                            () -> Deletes.ignoringNoNode(delete(background, full, path)));
                }
            });
        }
        return deleted;
    }

    private CompletableFuture<Void> delete(Exec exec, String full, String userPath) {
        return children ? Deletes.deleteTree(client, exec, full, version)
                : Deletes.deleteNode(exec, full, userPath, version);
    }

    @Override
    BatonEvent successEvent(String path, Void result) {
        return new BatonEvent(BatonEventType.DELETE, 0, path, path, null, null, null, null, null, null);
    }

    @Override
    BatonEventType eventType() {
        return BatonEventType.DELETE;
    }
}
