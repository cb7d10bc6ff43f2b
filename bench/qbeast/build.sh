#!/bin/bash
# Builds qbeast-spark (core + delta + the root project's src/main) from source, beside the project,
# with the scalac 2.12.18 that pyspark's jars carry (Qbeast's Spark package is not on Maven
# Central). Nothing of Qbeast enters this repository: the source is read from QBEAST_REPO (a git
# clone of github.com/Qbeast-io/qbeast-spark; measured at commit 9a269816) into QBEAST_WORK.
#   QBEAST_REPO=/path/to/qbeast-spark bench/qbeast/build.sh    then    bench/qbeast/run.py --write --query
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
R=${QBEAST_REPO:?QBEAST_REPO: a git clone of Qbeast-io/qbeast-spark}
mkdir -p "${QBEAST_WORK:=/tmp/qbeast-outside}"
cd "$QBEAST_WORK"
HERE=$PWD
PJ=$(ls -d "$ROOT"/.venv/lib/python3*/site-packages/pyspark/jars)
DELTA=${DELTA:-3.1.0}
if [ ! -d src/core ]; then
  mkdir -p src
  git -C $R archive HEAD core delta src/main project build.sbt README.md docs | tar -x -C src
fi
mkdir -p jars
for a in delta-spark_2.12 delta-storage; do
  [ -f jars/$a-$DELTA.jar ] || curl -sfo jars/$a-$DELTA.jar https://repo1.maven.org/maven2/io/delta/$a/$DELTA/$a-$DELTA.jar
done
CP=$(ls $PJ/*.jar jars/delta-spark_2.12-$DELTA.jar jars/delta-storage-$DELTA.jar | tr '\n' ':')
SC=$PJ/scala-compiler-2.12.18.jar:$PJ/scala-library-2.12.18.jar:$PJ/scala-reflect-2.12.18.jar
rm -rf build && mkdir -p build/classes
find src/core/src/main src/delta/src/main src/src/main -name '*.scala' > build/sources.txt
echo "compiling $(wc -l < build/sources.txt) files"
nice -n 10 java -Xmx3g -Xss8m -cp $SC scala.tools.nsc.Main -nowarn -feature -deprecation:false \
  -d build/classes -classpath "$CP" @build/sources.txt
cp -r src/src/main/resources/. build/classes/
(cd build/classes && jar cf $HERE/jars/qbeast-spark_2.12-$(git -C $R rev-parse --short HEAD)-delta$DELTA.jar .)
ls -la jars
