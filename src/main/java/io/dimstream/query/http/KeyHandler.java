package io.dimstream.query.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.KeyText;
import io.dimstream.query.LiveQueries;
import io.dimstream.query.QueryErrors;
import io.dimstream.query.SequenceTimes;
import io.dimstream.query.VersionRows;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code /dimensions/{dim}/keys/{key}[?asOf=T]} and {@code .../history}: one key's current version, its version
 * valid at T, or all its versions. A key another instance owns is forwarded there once (a forwarded request is
 * always answered here, so a stale routing table cannot loop) and its answer relayed.
 */
final class KeyHandler {
  private final Forwarder forwarder;
  /** host:port of this instance, named in {@link QueryServer#SERVED_BY_HEADER}. */
  private final Supplier<String> self;

  KeyHandler(Forwarder forwarder, Supplier<String> self) {
    this.forwarder = forwarder;
    this.self = self;
  }

  void handle(Exchange ex, DimensionEndpoint dim, String keyText, boolean history, String asOf) throws IOException {
    LiveQueries live = dim.live();
    DimensionSpec spec = live.spec();
    BusinessKey key = KeyText.parse(spec, keyText);
    Long at = asOf == null ? null : SequenceTimes.parse(spec, asOf);
    if (ex.header(QueryServer.FORWARDED_HEADER) == null) {
      Optional<LiveQueries.InstanceAddress> owner = live.ownerOf(key);
      if (owner.isPresent()) {
        Forwarder.Answer a = forwarder.get(owner.get(), ex.uri(), KeyText.format(spec, key));
        if (a.status() == 401 || a.status() == 403) {
          // this client was authenticated here: the owner refused this instance's credentials, not the client's
          throw QueryErrors.ownerRefusedForward(KeyText.format(spec, key), owner.get().toString(), a.status());
        }
        ex.addHeader(QueryServer.SERVED_BY_HEADER, owner.get().toString());
        ex.send(a.status(), a.contentType(), a.body());
        return;
      }
    }
    ex.addHeader(QueryServer.SERVED_BY_HEADER, self.get());
    VersionRows rows = new VersionRows(spec);
    String shown = KeyText.format(spec, key);
    if (history) {
      ex.sendJson(200, history(live, spec, rows, key, shown));
      return;
    }
    Optional<Version> v = at == null ? live.current(key) : live.asOf(key, at);
    if (v.isEmpty()) {
      throw QueryErrors.noVersion(spec, shown, at == null ? "that is current (unknown or deleted key)"
          : "valid at " + asOf);
    }
    ex.sendJson(200, rows.json(v.get()));
  }

  private static ObjectNode history(LiveQueries live, DimensionSpec spec, VersionRows rows, BusinessKey key,
      String shown) {
    List<Version> versions = live.history(key);
    if (versions.isEmpty()) {
      throw QueryErrors.noVersion(spec, shown, "at all");
    }
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("dimension", spec.name());
    n.set("key", rows.keyJson(key));
    ArrayNode attrs = n.putArray("attributes");
    spec.attributeColumns().forEach(c -> attrs.add(c.name()));
    ArrayNode tracked = n.putArray("tracked");
    spec.attributeColumns().stream().filter(c -> spec.isTracked(c.name())).forEach(c -> tracked.add(c.name()));
    ArrayNode vs = n.putArray("versions");
    versions.forEach(v -> vs.add(rows.json(v)));
    return n;
  }
}
