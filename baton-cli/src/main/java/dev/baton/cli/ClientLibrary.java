package dev.baton.cli;

/**
 * The client library a chaos client process runs: Baton's, or Apache Curator's on the same znodes
 * ({@code baton chaos --mix curator:N%}). A client's name in the history ends with its library's id
 * ({@code c2-curator}), so every violation names the libraries in it.
 */
enum ClientLibrary {
    BATON("baton", ChaosClient.class),
    CURATOR("curator", CuratorChaosClient.class);

    private final String id;
    private final Class<?> mainClass;

    ClientLibrary(String id, Class<?> mainClass) {
        this.id = id;
        this.mainClass = mainClass;
    }

    /** {@return the library's name in client names and the verdict} */
    String id() {
        return id;
    }

    /** {@return the client process's main class} */
    Class<?> mainClass() {
        return mainClass;
    }

    /** {@return the library a client's name ends with ({@code c2-curator}), Baton's when it names none} */
    static ClientLibrary ofClient(String name) {
        return name.endsWith("-" + CURATOR.id) ? CURATOR : BATON;
    }

    /**
     * Returns the library of client {@code index} (1-based) of {@code clients} when {@code curatorPercent} of them
     * run Curator: that share rounded to the nearest client, spread evenly (2 of 4: the 2nd and the 4th), and at
     * least one each way when the share is neither 0 nor 100.
     */
    static ClientLibrary of(int index, int clients, int curatorPercent) {
        int onCurator = onCurator(clients, curatorPercent);
        // Client i is on Curator when the running count of Curator clients steps up at i.
        return (long) index * onCurator / clients > (long) (index - 1) * onCurator / clients ? CURATOR : BATON;
    }

    /** Returns how many of {@code clients} run Curator when {@code curatorPercent} of them do (see {@link #of}). */
    static int onCurator(int clients, int curatorPercent) {
        int onCurator = (int) Math.round(clients * curatorPercent / 100.0);
        return curatorPercent > 0 && curatorPercent < 100 ? Math.max(1, Math.min(clients - 1, onCurator)) : onCurator;
    }
}
