package io.github.sparkperceptron.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.spark.SparkEnv;
import org.apache.spark.connect.proto.Command;
import org.apache.spark.connect.proto.DataType;
import org.apache.spark.connect.proto.Doubles;
import org.apache.spark.connect.proto.ExecutePlanRequest;
import org.apache.spark.connect.proto.ExecutePlanResponse;
import org.apache.spark.connect.proto.Expression;
import org.apache.spark.connect.proto.Fetch;
import org.apache.spark.connect.proto.MlCommand;
import org.apache.spark.connect.proto.MlCommandResult;
import org.apache.spark.connect.proto.MlOperator;
import org.apache.spark.connect.proto.MlParams;
import org.apache.spark.connect.proto.MlRelation;
import org.apache.spark.connect.proto.ObjectRef;
import org.apache.spark.connect.proto.Plan;
import org.apache.spark.connect.proto.Read;
import org.apache.spark.connect.proto.Relation;
import org.apache.spark.connect.proto.SparkConnectServiceGrpc;
import org.apache.spark.connect.proto.UserContext;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connect.service.SparkConnectService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparkproject.connect.grpc.ManagedChannel;
import org.sparkproject.connect.grpc.StatusRuntimeException;
import org.sparkproject.connect.grpc.netty.NettyChannelBuilder;

/**
 * The estimator and model used as a remote Spark Connect client uses them: a Connect server runs
 * in this JVM (Spark 4.2's {@code SparkConnectService} on the tests' SparkContext, on a free port
 * of 127.0.0.1), and the test talks to it over gRPC only, with the protocol's own messages
 * ({@code ExecutePlanRequest} carrying {@code MlCommand}s and {@code MlRelation}s), as PySpark's
 * Connect client does. The server creates the estimator by class name (our
 * {@code META-INF/services/org.apache.spark.ml.Estimator}), fits, caches the model (moving it to
 * its local disk with its summary), answers the allow-listed attributes, transforms, saves and
 * loads (our {@code ...Transformer} service). Every answer is compared with the same estimator
 * fitted here, in-process, on the same data: Connect must change nothing.
 */
class SparkConnectTest {
  private static final String ESTIMATOR = PerceptronClassifier.class.getName();
  private static final String MODEL = PerceptronClassificationModel.class.getName();
  private static final Path TRAIN = TestData.sharedData("breast_cancer", "train.libsvm");
  private static final Path TEST = TestData.sharedData("breast_cancer", "test.libsvm");

  private static SparkSession spark;
  private static ManagedChannel channel;
  private static SparkConnectServiceGrpc.SparkConnectServiceBlockingStub stub;
  private static final String SESSION = UUID.randomUUID().toString();

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() throws IOException {
    spark = SparkTestSupport.spark();
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    // The service reads its address from the running SparkContext's conf when it starts.
    SparkEnv.get().conf().set("spark.connect.grpc.binding.address", "127.0.0.1");
    SparkEnv.get().conf().set("spark.connect.grpc.binding.port", Integer.toString(port));
    SparkConnectService.start(spark.sparkContext());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    stub = SparkConnectServiceGrpc.newBlockingStub(channel);
  }

  @AfterAll
  static void stopServer() throws InterruptedException, IOException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    SparkConnectService.stop(SparkConnectService.stop$default$1(),
        SparkConnectService.stop$default$2());
    // The server's model cache of this session (java.io.tmpdir/spark_connect_model_cache/ID):
    // stopping empties it of fitted models but keeps loaded ones.
    Path cache = Path.of(System.getProperty("java.io.tmpdir"), "spark_connect_model_cache",
        SESSION);
    if (Files.exists(cache)) {
      try (Stream<Path> walk = Files.walk(cache)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The estimator's params as a client sends them (Python sends ints, floats and strings). */
  private static MlParams params() {
    return MlParams.newBuilder()
        .putParams("maxIter", Expression.Literal.newBuilder().setInteger(8).build())
        .putParams("updateRule", Expression.Literal.newBuilder().setString("pa1").build())
        .putParams("aggressiveness", Expression.Literal.newBuilder().setDouble(0.5).build())
        .putParams("seed", Expression.Literal.newBuilder().setLong(7).build())
        .putParams("fitIntercept", Expression.Literal.newBuilder().setBoolean(true).build())
        .build();
  }

  private static PerceptronClassifier localEstimator() {
    return new PerceptronClassifier().setMaxIter(8).setUpdateRule("pa1").setAggressiveness(0.5)
        .setSeed(7).setFitIntercept(true);
  }

  private static Relation libsvm(Path file) {
    return Relation.newBuilder().setRead(Read.newBuilder().setDataSource(
        Read.DataSource.newBuilder().setFormat("libsvm").putOptions("numFeatures", "30")
            .addPaths(file.toString()))).build();
  }

  private static Dataset<Row> localLibsvm(Path file) {
    return spark.read().format("libsvm").option("numFeatures", "30").load(file.toString());
  }

  private static List<ExecutePlanResponse> execute(Plan plan) {
    ExecutePlanRequest request = ExecutePlanRequest.newBuilder().setSessionId(SESSION)
        .setUserContext(UserContext.newBuilder().setUserId("spark-perceptron-test"))
        .setClientType("spark-perceptron-test").setPlan(plan).build();
    List<ExecutePlanResponse> responses = new ArrayList<>();
    Iterator<ExecutePlanResponse> it = stub.executePlan(request);
    it.forEachRemaining(responses::add);
    return responses;
  }

  private static MlCommandResult ml(MlCommand command) {
    for (ExecutePlanResponse r : execute(Plan.newBuilder()
        .setCommand(Command.newBuilder().setMlCommand(command)).build())) {
      if (r.hasMlCommandResult()) {
        return r.getMlCommandResult();
      }
    }
    throw new AssertionError("no ML command result for " + command);
  }

  private static String fit() {
    MlCommandResult result = ml(MlCommand.newBuilder().setFit(MlCommand.Fit.newBuilder()
        .setEstimator(MlOperator.newBuilder().setName(ESTIMATOR).setUid("perceptron_remote")
            .setType(MlOperator.OperatorType.OPERATOR_TYPE_ESTIMATOR))
        .setParams(params()).setDataset(libsvm(TRAIN))).build());
    return result.getOperatorInfo().getObjRef().getId();
  }

  private static Expression.Literal fetch(String objectId, Fetch.Method... methods) {
    Fetch.Builder f = Fetch.newBuilder().setObjRef(ObjectRef.newBuilder().setId(objectId));
    for (Fetch.Method m : methods) {
      f.addMethods(m);
    }
    return ml(MlCommand.newBuilder().setFetch(f).build()).getParam();
  }

  private static Fetch.Method method(String name) {
    return Fetch.Method.newBuilder().setMethod(name).build();
  }

  /**
   * A dense vector as Spark Connect's ML literals carry it (a VectorUDT struct). The struct's type
   * goes in {@code struct_type}, deprecated in 4.2's protocol but the field Spark 4.2's ML
   * handler reads ({@code MLUtils.deserializeVector}).
   */
  @SuppressWarnings("deprecation")
  private static Expression.Literal denseVector(double[] values) {
    Doubles.Builder doubles = Doubles.newBuilder();
    for (double v : values) {
      doubles.addValues(v);
    }
    Expression.Literal none = Expression.Literal.newBuilder()
        .setNull(DataType.newBuilder().setNull(DataType.NULL.getDefaultInstance())).build();
    return Expression.Literal.newBuilder().setStruct(Expression.Literal.Struct.newBuilder()
        .setStructType(DataType.newBuilder().setUdt(DataType.UDT.newBuilder().setType("udt")
            .setJvmClass("org.apache.spark.ml.linalg.VectorUDT")))
        .addElements(Expression.Literal.newBuilder().setByte(1)).addElements(none)
        .addElements(none).addElements(Expression.Literal.newBuilder().setSpecializedArray(
            Expression.Literal.SpecializedArray.newBuilder().setDoubles(doubles)))).build();
  }

  private static double[] vectorValues(Expression.Literal literal) {
    List<Double> values = literal.getStruct().getElements(3).getSpecializedArray().getDoubles()
        .getValuesList();
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  @Test
  void fitTransformAndAllowListedAttributesOverGrpcEqualTheLocalModel() throws Exception {
    String id = fit();
    PerceptronClassificationModel local = localEstimator().fit(localLibsvm(TRAIN));

    assertEquals(30, fetch(id, method("numFeatures")).getInteger());
    assertEquals(2, fetch(id, method("numClasses")).getInteger());
    Vector first = (Vector) localLibsvm(TEST).first().get(1);
    Expression.Literal raw = fetch(id, Fetch.Method.newBuilder().setMethod("predictRaw")
        .addArgs(Fetch.Method.Args.newBuilder().setParam(denseVector(first.toArray()))).build());
    assertArrayEquals(local.predictRaw(first).toArray(), vectorValues(raw), 0.0);
    assertEquals(local.predict(first), fetch(id, Fetch.Method.newBuilder().setMethod("predict")
        .addArgs(Fetch.Method.Args.newBuilder().setParam(denseVector(first.toArray()))).build())
        .getDouble(), 0.0);
    assertTrue(fetch(id, method("hasSummary")).getBoolean());
    assertEquals(local.summary().totalIterations(),
        fetch(id, method("summary"), method("totalIterations")).getInteger());
    assertArrayEquals(local.summary().objectiveHistory(), fetch(id, method("summary"),
        method("objectiveHistory")).getArray().getElementsList().stream()
        .mapToDouble(Expression.Literal::getDouble).toArray(), 0.0);

    // The server lets clients call only the attributes its allow-list names for the model's
    // Spark types (ClassificationModel, HasTrainingSummary, ...): not coefficients.
    StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
        () -> fetch(id, method("coefficients")));
    assertTrue(refused.getMessage().contains("coefficients"), refused.getMessage());

    List<double[]> remote = transform(id);
    List<Row> expected = local.transform(localLibsvm(TEST)).select("prediction", "rawPrediction")
        .collectAsList();
    assertEquals(expected.size(), remote.size());
    for (int i = 0; i < expected.size(); i++) {
      double[] r = remote.get(i);
      assertEquals(expected.get(i).getDouble(0), r[0], 0.0, "prediction of row " + i);
      assertArrayEquals(((Vector) expected.get(i).get(1)).toArray(),
          new double[] {r[1], r[2]}, 0.0, "rawPrediction of row " + i);
    }
  }

  /**
   * Saving through Connect writes Spark's layout, which loads here; loading through Connect (by
   * the model's class name) gives a model the server can transform with; and a model the server
   * evicted to its disk answers {@code summary} again once the client asks to recreate it, from
   * the summary file {@code saveSummary} wrote.
   */
  @Test
  void saveLoadAndTheSummaryOfAnEvictedModelOverGrpc() throws Exception {
    String id = fit();
    PerceptronClassificationModel local = localEstimator().fit(localLibsvm(TRAIN));
    Path saved = tmp.resolve("remote-model");
    ml(MlCommand.newBuilder().setWrite(MlCommand.Write.newBuilder()
        .setObjRef(ObjectRef.newBuilder().setId(id)).setPath(saved.toString())
        .setShouldOverwrite(true)).build());
    PerceptronClassificationModel loaded = PerceptronClassificationModel.load(saved.toString());
    assertArrayEquals(local.coefficients().toArray(), loaded.coefficients().toArray(), 0.0);
    assertEquals(local.intercept(), loaded.intercept(), 0.0);

    MlCommandResult read = ml(MlCommand.newBuilder().setRead(MlCommand.Read.newBuilder()
        .setOperator(MlOperator.newBuilder().setName(MODEL)
            .setType(MlOperator.OperatorType.OPERATOR_TYPE_MODEL))
        .setPath(saved.toString())).build());
    String readId = read.getOperatorInfo().getObjRef().getId();
    assertEquals("perceptron_remote", read.getOperatorInfo().getUid(),
        "the uid the client gave the estimator, kept by the model, its save and its load");
    assertEquals(30, fetch(readId, method("numFeatures")).getInteger());
    assertEquals(transform(id).size(), transform(readId).size());

    ml(MlCommand.newBuilder().setDelete(MlCommand.Delete.newBuilder()
        .addObjRefs(ObjectRef.newBuilder().setId(id)).setEvictOnly(true)).build());
    StatusRuntimeException lost = assertThrows(StatusRuntimeException.class,
        () -> fetch(id, method("summary"), method("totalIterations")));
    assertTrue(lost.getMessage().toUpperCase(Locale.ROOT).contains("SUMMARY"),
        lost.getMessage());
    ml(MlCommand.newBuilder().setCreateSummary(MlCommand.CreateSummary.newBuilder()
        .setModelRef(ObjectRef.newBuilder().setId(id)).setDataset(libsvm(TRAIN))).build());
    assertEquals(local.summary().totalIterations(),
        fetch(id, method("summary"), method("totalIterations")).getInteger());
    assertArrayEquals(local.summary().objectiveHistory(), fetch(id, method("summary"),
        method("objectiveHistory")).getArray().getElementsList().stream()
        .mapToDouble(Expression.Literal::getDouble).toArray(), 0.0);
  }

  /**
   * The model's {@code transform} of the test file, run by the server and collected as a client
   * collects it: Arrow record batches, decoded here; per row {prediction, raw0, raw1}.
   */
  private static List<double[]> transform(String modelId) throws IOException {
    Relation transformed = Relation.newBuilder().setMlRelation(MlRelation.newBuilder()
        .setTransform(MlRelation.Transform.newBuilder()
            .setObjRef(ObjectRef.newBuilder().setId(modelId)).setInput(libsvm(TEST))
            .setParams(MlParams.getDefaultInstance()))).build();
    List<double[]> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (ExecutePlanResponse r : execute(Plan.newBuilder().setRoot(transformed).build())) {
        if (!r.hasArrowBatch()) {
          continue;
        }
        try (ArrowStreamReader reader = new ArrowStreamReader(
            new ByteArrayInputStream(r.getArrowBatch().getData().toByteArray()), allocator)) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            Float8Vector prediction = (Float8Vector) root.getVector("prediction");
            StructVector raw = (StructVector) root.getVector("rawPrediction");
            ListVector values = (ListVector) raw.getChild("values");
            for (int i = 0; i < root.getRowCount(); i++) {
              List<?> v = values.getObject(i);
              rows.add(new double[] {prediction.get(i), ((Number) v.get(0)).doubleValue(),
                  ((Number) v.get(1)).doubleValue()});
            }
          }
        }
      }
    }
    return rows;
  }
}
