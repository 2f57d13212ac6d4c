package io.dimstream.change;

import io.dimstream.registry.RegisteredSchema;
import io.dimstream.registry.SchemaRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * What a decoder compiled from each writer schema, by id: fetched from the registry once and kept, the least
 * recently used dropped past the cache size. Thread-safe.
 *
 * @param <P> what one writer schema compiles to (a reading plan, or why none can be made)
 */
final class SchemaCache<P> {
  private final SchemaRegistry registry;
  private final Function<RegisteredSchema, P> compile;
  private final Map<Integer, P> cache;
  /** The id asked last and its value: a topic mostly carries one writer version, so most lookups take no lock. */
  private volatile Last<P> last;

  private record Last<P>(int id, P value) {}

  SchemaCache(SchemaRegistry registry, int size, Function<RegisteredSchema, P> compile) {
    this.registry = registry;
    this.compile = compile;
    this.cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Integer, P> eldest) {
        return size() > size;
      }
    };
  }

  /**
   * What schema {@code id} compiles to; waits while the registry is unreachable (see {@link SchemaRegistry#schema}).
   *
   * @throws io.dimstream.registry.UnknownSchemaIdException when the registry has no such id (not kept: the schema
   *     may be registered later)
   */
  P get(int id) {
    Last<P> l = last;
    if (l != null && l.id() == id) {
      return l.value();
    }
    synchronized (cache) {
      P p = cache.get(id);
      if (p != null) {
        last = new Last<>(id, p);
        return p;
      }
    }
    // fetched outside the lock: one slow id must not hold up records of ids already known
    P p = compile.apply(registry.schema(id));
    synchronized (cache) {
      cache.put(id, p);
    }
    last = new Last<>(id, p);
    return p;
  }
}
