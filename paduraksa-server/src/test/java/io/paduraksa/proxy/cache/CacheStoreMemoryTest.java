package io.paduraksa.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.config.CacheSpec;
import io.paduraksa.config.DataSize;
import io.paduraksa.config.ResponseHeadersSpec;
import io.paduraksa.ops.CacheAdmin;
import io.paduraksa.snapshot.ResponseHeaderRules;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The store's byte bound holds under a million distinct URLs, and what it weighs is at least what
 * an entry really costs: the body's pooled bytes plus the heap the entry keeps (measured after a
 * GC), so the bound is a bound on memory, not only on a count. Runs with the allocation tests:
 * Netty's leak detector off, as in production (at {@code paranoid} it keeps a stack trace per buffer,
 * about 4.5 KB of heap per entry here).
 */
@Tag("allocation")
class CacheStoreMemoryTest {
    private static final long MAX = 8L << 20;

    static StoredResponse response(int bodyBytes, int keyLength) {
        ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer(bodyBytes, bodyBytes).writeZero(bodyBytes);
        AsciiString[] names = {AsciiString.of("Content-Type"), AsciiString.of("Cache-Control"), AsciiString.of("ETag")};
        AsciiString[] values = {AsciiString.of("text/plain"), AsciiString.of("max-age=60"), AsciiString.of("\"" + keyLength + "-" + bodyBytes + "\"")};
        return new StoredResponse(200, names, values, body, bodyBytes, System.nanoTime(), 0, 60, 0, 0, keyLength);
    }

    @Test
    void aMillionDistinctUrlsStayUnderTheByteBound() {
        CacheStore store = new CacheStore(new CacheSpec(DataSize.ofBytes(MAX), DataSize.ofKibibytes(64), Duration.ofSeconds(5)));
        long direct = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        long maxSeen = 0;
        try {
            for (int i = 0; i < 1_000_000; i++) {
                CacheKey key = CacheKey.of("www.example.test", "/items/" + i + "/page.html", "v=" + (i % 97));
                store.put(key, response(64 + (i % 1500), key.length()));
                if (i % 10_000 == 9_999) {
                    store.cleanUp();
                    CacheAdmin.Figures f = store.figures();
                    maxSeen = Math.max(maxSeen, f.bytes());
                    assertThat(f.bytes()).as("weighed bytes after %,d URLs", i + 1).isLessThanOrEqualTo(MAX);
                    // Every body an evicted entry held went back to the pool: what is in use stays near the bound
                    // (one 4 MiB pool chunk of slack for the allocator's granularity).
                    assertThat(PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - direct)
                            .as("pooled direct bytes after %,d URLs", i + 1).isLessThanOrEqualTo(MAX + (4L << 20));
                }
            }
            CacheAdmin.Figures f = store.figures();
            System.out.printf("1,000,000 URLs into %,d B: %,d entries kept, %,d B weighed (max seen %,d), %,d evicted%n",
                    MAX, f.entries(), f.bytes(), maxSeen, f.evictions());
            assertThat(f.evictions()).isGreaterThan(900_000);
            assertThat(f.stores()).isEqualTo(1_000_000);
        } finally {
            store.clear();
        }
        assertThat(PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - direct).as("all bodies released").isLessThanOrEqualTo(4L << 20);
    }

    private static final ResponseHeaderRules RULES = ResponseHeaderRules.compile(ResponseHeadersSpec.EMPTY);

    @Test
    void anEntryWeighsAtLeastWhatItKeepsOnTheHeap() {
        int n = 100_000;
        CacheStore store = new CacheStore(new CacheSpec(DataSize.ofMebibytes(1024), DataSize.ofKibibytes(64), Duration.ofSeconds(5)));
        try {
            long before = heapAfterGc();
            long weighedHeap = 0;
            for (int i = 0; i < n; i++) {
                CacheKey key = CacheKey.of("www.example.test", "/items/" + i + "/page.html", "v=" + (i % 97));
                StoredResponse r = response(100, key.length());
                r.http1Lines(RULES, false); // as after its first HTTP/1.1 hit: the encoded head is kept too
                weighedHeap += r.weight() - 100; // what the weight counts beside the body
                store.put(key, r);
            }
            store.cleanUp();
            long heap = heapAfterGc() - before;
            System.out.printf("heap per entry %,d B, weighed beside the body %,d B%n", heap / n, weighedHeap / n);
            assertThat(store.figures().entries()).isEqualTo(n);
            assertThat(weighedHeap).as("the weight covers the heap an entry keeps").isGreaterThanOrEqualTo(heap);
        } finally {
            store.clear();
        }
    }

    private static long heapAfterGc() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return m.getHeapMemoryUsage().getUsed();
    }
}
