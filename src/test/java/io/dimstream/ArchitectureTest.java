package io.dimstream;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Holds the package layering of docs/concepts.md ("The code by concept"): each layer depends only on the layers
 * below it.
 */
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.dimstream");
  }

  @Test
  void shouldKeepKafkaOutOfTheValueHistoryCodecAndTableLayers() {
    noClasses().that().resideInAnyPackage("io.dimstream.model..", "io.dimstream.history..", "io.dimstream.table..",
            "io.dimstream.spec..", "io.dimstream.codec..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
        .check(main);
  }

  @Test
  void shouldKeepTheColumnTypesTheGroundFloor() {
    classes().that().resideInAPackage("io.dimstream.types..")
        .should().onlyDependOnClassesThat(outsideOurCodeOr("io.dimstream.types.."))
        .check(main);
  }

  @Test
  void shouldKeepModelOnTheColumnTypesAlone() {
    // the values every layer shares know column types, never the spec that declares them
    classes().that().resideInAPackage("io.dimstream.model..")
        .should().onlyDependOnClassesThat(outsideOurCodeOr("io.dimstream.model..", "io.dimstream.types.."))
        .check(main);
  }

  @Test
  void shouldKeepTheSpecBelowEveryLayerThatReadsIt() {
    classes().that().resideInAPackage("io.dimstream.spec..")
        .should().onlyDependOnClassesThat(outsideOurCodeOr("io.dimstream.spec..", "io.dimstream.types..",
            "io.dimstream.storage.."))
        .check(main);
  }

  @Test
  void shouldKeepTheSchemaRegistryClientOnTheSpecAlone() {
    // a client of the registry's HTTP API: the decoders use it, and it knows nothing of records, Kafka or the table
    classes().that().resideInAPackage("io.dimstream.registry..")
        .should().onlyDependOnClassesThat(outsideOurCodeOr("io.dimstream.registry..", "io.dimstream.spec.."))
        .andShould().onlyDependOnClassesThat().resideOutsideOfPackage("org.apache.kafka..")
        .check(main);
  }

  @Test
  void shouldKeepHistoryThePureRuleOverModelAndSpec() {
    noClasses().that().resideInAPackage("io.dimstream.history..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.codec..", "io.dimstream.table..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.batch..", "io.dimstream.broker..", "io.dimstream.cli..",
            "io.dimstream.testkit..")
        .check(main);
  }

  @Test
  void shouldKeepTableAndHistoryApart() {
    noClasses().that().resideInAPackage("io.dimstream.table..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.history..", "io.dimstream.codec..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.batch..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldKeepTheCompactorIndependentOfTheTopology() {
    noClasses().that().resideInAPackage("io.dimstream.compactor..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.topology..", "io.dimstream.service..",
            "io.dimstream.batch..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldLetTheCompactorWriteTheTableItselfOnTheLayersBelowIt() {
    // the compactor commits through the table's own commit builder: no adapter above it (in the service) stands
    // between them, and nothing it needs lives in a layer that depends on it
    classes().that().resideInAPackage("io.dimstream.compactor..")
        .should().onlyDependOnClassesThat(outsideOurCodeOr("io.dimstream.compactor..", "io.dimstream.table",
            "io.dimstream.model..", "io.dimstream.types..", "io.dimstream.spec..", "io.dimstream.storage.."))
        .check(main);
  }

  @Test
  void shouldLetNoOneButTheServiceAndTheCommandLineStartACompactor() {
    // the compactor is a part of the running service; nothing below it (the table, the batch loads) may call it
    classes().that().resideInAPackage("io.dimstream.compactor..")
        .should().onlyHaveDependentClassesThat().resideInAnyPackage("io.dimstream.compactor..",
            "io.dimstream.service..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldKeepTheOfflineLoadsAboveTheTableAndBesideTheService() {
    // backfill and snapshot apply fold with the topology's step and write the table, without a running service
    noClasses().that().resideInAPackage("io.dimstream.batch..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.service..", "io.dimstream.compactor..",
            "io.dimstream.query..", "io.dimstream.broker..", "io.dimstream.cli..", "io.dimstream.testkit..")
        .check(main);
  }

  @Test
  void shouldLetNobodyImportTheCommandLine() {
    noClasses().that().resideOutsideOfPackage("io.dimstream.cli..")
        .should().dependOnClassesThat().resideInAPackage("io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldLetOnlyTheCommandLineAndTheTestKitUseTheService() {
    classes().that().resideInAPackage("io.dimstream.service..")
        .should().onlyHaveDependentClassesThat().resideInAnyPackage("io.dimstream.service..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldUseInternalPackagesOnlyInsideTheirParent() {
    noClasses().that().resideOutsideOfPackage("io.dimstream.table..")
        .should().dependOnClassesThat().resideInAPackage("io.dimstream.table.internal..")
        .check(main);
  }

  @Test
  void shouldKeepExpressionsBesideHistoryOverModelAndSpec() {
    noClasses().that().resideInAPackage("io.dimstream.expr..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.codec..", "io.dimstream.table..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.batch..", "io.dimstream.broker..", "io.dimstream.cli..",
            "io.dimstream.testkit..", "org.apache.kafka..")
        .check(main);
  }

  @Test
  void shouldHaveNoCyclesBetweenPackages() {
    slices().matching("io.dimstream.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void shouldHaveNoCyclesBetweenThePackagesInsideTheTable() {
    // each package under io.dimstream.table its own slice: the facade's value types sit above them all (next test)
    SliceAssignment innerPackages = new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String p = c.getPackageName();
        return p.startsWith("io.dimstream.table.") ? SliceIdentifier.of(p) : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the packages inside io.dimstream.table";
      }
    };
    slices().assignedFrom(innerPackages).should().beFreeOfCycles().check(main);
  }

  @Test
  void shouldKeepTheTableInternalsBelowItsEntryPoints() {
    // the internals may use the facade's results, options and exceptions, never the classes that call them
    noClasses().that().resideInAPackage("io.dimstream.table.internal..")
        .should().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.DeltaTable")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.Snapshot")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.Transaction")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.BulkLoad")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.CommitBuilder")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("io.dimstream.table.Compaction")
        .check(main);
  }

  /** Classes outside io.dimstream (the JDK, libraries), the root package's exception, or the given packages. */
  private static DescribedPredicate<JavaClass> outsideOurCodeOr(String... packages) {
    return resideOutsideOfPackage("io.dimstream..")
        .or(resideInAPackage("io.dimstream"))
        .or(resideInAnyPackage(packages));
  }
}
