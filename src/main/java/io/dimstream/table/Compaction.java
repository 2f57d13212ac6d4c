package io.dimstream.table;

import java.util.Objects;

/**
 * One compaction of a merge-on-read table (deletion vectors), from {@link DeltaTable#newCompaction}: rewrites the
 * files whose deleted fraction reaches {@code dimstream.compaction.deletedFraction} (default 0.3) and merges files
 * with fewer live rows than {@code dimstream.compaction.smallFileRows} (default 20000), dropping their deletion
 * vectors, in one {@code OPTIMIZE} commit with {@code dataChange = false}. Rows are unchanged. A copy-on-write table
 * has nothing to compact. A lost race is written again on the newer version when the winners removed or re-marked
 * none of its files, else re-planned.
 */
public final class Compaction {
  /** Runs a compaction: every file past a threshold, or one bounded cycle, of the files {@code owners} may rewrite. */
  interface Runner {
    OptimizeResult run(boolean everyFile, Ownership owners);
  }

  private final Runner runner;
  private Ownership owners = Ownership.all();

  Compaction(Runner runner) {
    this.runner = runner;
  }

  /**
   * Rewrites only the files {@code owners} may rewrite ({@link Ownership#mayRewrite}), each owner's files into files
   * of the same owner. Every file by default.
   */
  public Compaction owners(Ownership owners) {
    this.owners = Objects.requireNonNull(owners, "owners");
    return this;
  }

  /**
   * The compactor's background cycle: rewrites at most {@code dimstream.compaction.rowsPerCycle} rows (default
   * 500000) and merges only small files of similar size (each at most twice the live rows of the smaller ones it
   * joins), so that a cycle between two commits stays short.
   *
   * @return the commit made, or {@code committed == false} when nothing passed a threshold
   */
  public OptimizeResult runCycle() {
    return runner.run(false, owners);
  }

  /**
   * Rewrites every file past a threshold, however many rows that is ({@code dimstream table optimize}).
   *
   * @return the commit made, or {@code committed == false} when nothing passed a threshold
   */
  public OptimizeResult runFull() {
    return runner.run(true, owners);
  }
}
