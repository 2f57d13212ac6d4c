package io.dimstream.table.internal.commit;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.TableFeatures;
import io.dimstream.table.internal.files.SpecCodec;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.types.Column;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to bring a table's stored spec and schema to a new spec in one commit: added columns and widened
 * columns (with the {@code typeWidening} table feature, see {@link TypeWidening}) in a metaData action.
 */
public final class SchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolution.class);

  private final CommitWriter writer;

  public SchemaEvolution(CommitWriter writer) {
    this.writer = writer;
  }

  /**
   * Commits {@code asked} on top of {@code state} unless it is already stored.
   *
   * @return whether a commit was written
   * @throws io.dimstream.table.TableException naming the column and the fix when the change is not an addition
   */
  public boolean evolve(TableState state, DimensionSpec stored, DimensionSpec asked) {
    String json = SpecCodec.toJson(asked);
    if (json.equals(state.metadata.configuration().get(SpecCodec.PROPERTY))) {
      return false;
    }
    checkCompatible(stored, asked);
    SpecDiff diff = SpecDiff.of(stored, asked);
    TableLayout layout = new TableLayout(asked);
    Map<String, String> conf = new LinkedHashMap<>(state.metadata.configuration());
    conf.put(SpecCodec.PROPERTY, json);
    if (!diff.widened().isEmpty()) {
      conf.put(TableProperties.ENABLE_TYPE_WIDENING, "true");
    }
    StateLayouts layouts = stateLayouts(conf).evolved(stored, asked);
    if (!layouts.earlier().isEmpty()) {
      // a running service's stored events may hold the former layout: every instance must be able to read them
      conf.put(StateLayouts.PROPERTY, layouts.toJson());
    }
    Metadata old = state.metadata;
    String schema = FieldMetadata.carry(old.schemaString(), layout.deltaSchemaString(), diff.widened());
    Metadata md = new Metadata(old.id(), old.name(), schema, old.partitionColumns(), conf, old.createdTime());
    Protocol protocol = TableFeatures.protocolFor(state.protocol, md);
    if (!protocol.equals(state.protocol) && (!LogReplay.canWrite(protocol) || !LogReplay.canRead(protocol))) {
      if (diff.widened().isEmpty()) {
        LogReplay.checkWritable(writer.root(), protocol);
      }
      throw TableErrors.cannotWiden(writer.root(), asked.source(), diff.widened().get(0).column(), state.protocol);
    }
    long now = writer.timestampAfter(state);
    Map<String, String> params = new LinkedHashMap<>();
    params.put("columns", diff.addedColumns().toString());
    if (!diff.widened().isEmpty()) {
      params.put("widened", diff.widened().toString());
    }
    params.put("nowTracked", diff.nowTracked().toString());
    params.put("noLongerTracked", diff.noLongerTracked().toString());
    List<Action> actions = new ArrayList<>();
    if (!protocol.equals(state.protocol)) {
      actions.add(protocol);
    }
    actions.add(md);
    actions.add(0, CommitInfo.of(now, diff.operation(), params, Map.of(), null, actions.size()));
    writer.write(state.version + 1, actions, now, List.of(), state);
    LOG.info("{}: evolved to the spec {} at version {}: {} (tracking applies to events from now on)", writer.root(),
        asked.source() == null ? "(no file)" : asked.source(), state.version + 1, diff.describe());
    return true;
  }

  private static String outputText(DimensionSpec spec) {
    var o = spec.output();
    return "{valid_from: " + o.validFrom() + ", valid_to: " + o.validTo() + ", is_current: " + o.isCurrent()
        + (o.hasVersionId() ? ", version_id: " + o.versionId() : "") + "}";
  }

  private static String describe(DimensionSpec spec) {
    return spec.history().kind().specName() + (spec.history().softDelete() ? " with soft_delete" : "");
  }

  private StateLayouts stateLayouts(Map<String, String> conf) {
    try {
      return StateLayouts.parse(conf.get(StateLayouts.PROPERTY));
    } catch (IllegalArgumentException e) {
      throw TableErrors.badStateLayouts(writer.root(), e.getMessage());
    }
  }

  private void checkCompatible(DimensionSpec stored, DimensionSpec asked) {
    ObjectStore root = writer.root();
    Path file = asked.source();
    if (!stored.name().equals(asked.name())) {
      throw TableErrors.structureChanged(root, file, "name", stored.name(), asked.name());
    }
    if (!stored.key().equals(asked.key())) {
      throw TableErrors.structureChanged(root, file, "key", stored.key(), asked.key());
    }
    if (!stored.sequence().equals(asked.sequence())) {
      throw TableErrors.structureChanged(root, file, "sequence", stored.sequence(), asked.sequence());
    }
    if (!stored.history().equals(asked.history())) {
      throw TableErrors.structureChanged(root, file, "history (and soft_delete)", describe(stored), describe(asked));
    }
    if (!stored.output().equals(asked.output())) {
      throw TableErrors.structureChanged(root, file, "output", outputText(stored), outputText(asked));
    }
    for (Column c : SpecCodec.tableColumns(stored)) {
      Column n = asked.column(c.name());
      if (n == null || n.name().equals(asked.deleteRule().column())) {
        throw TableErrors.droppedColumn(root, file, c.name());
      }
      if (!n.type().equals(c.type())) {
        if (!TypeWidening.allows(c.type(), n.type())) {
          throw TableErrors.typeChanged(root, file, c.name(), c.type(), n.type());
        }
        if (stored.key().contains(c.name()) || stored.sequence().contains(c.name())) {
          throw TableErrors.identityTypeChanged(root, file, c.name(), c.type(), n.type());
        }
      }
    }
    // no column is dropped, so an equal count means the same attributes: only their order may differ
    List<String> storedLayout = StateLayouts.layoutOf(stored);
    List<String> askedLayout = StateLayouts.layoutOf(asked);
    if (storedLayout.size() == askedLayout.size() && !storedLayout.equals(askedLayout)) {
      throw TableErrors.reorderedAttributes(root, file, storedLayout, askedLayout);
    }
  }
}
