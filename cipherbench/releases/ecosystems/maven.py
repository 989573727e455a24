"""Maven Central: the release's jar on the Java runner's classpath."""
from __future__ import annotations

from cipherbench.paths import BUILD
from cipherbench.releases.client import Client, run
from cipherbench.releases.release import Ecosystem, Package, Release, ReleaseError, version_key

#: Bouncy Castle's last release as bcprov-jdk15on; later ones are bcprov-jdk18on.
BC_LAST_JDK15 = "1.70"


def maven_artifact(package: Package, version: str) -> str:
    """group:artifact:version of a release: Bouncy Castle's jar changed its name after 1.70."""
    group, artifact = package.coordinate.split(":")
    if package.impl == "bouncycastle" and version_key(version) <= version_key(BC_LAST_JDK15):
        artifact = "bcprov-jdk15on"
    return f"{group}:{artifact}:{version}"


def install(r: Release) -> str:
    """The release's jar, copied into its folder as jar/ holds it alone (the Java runner's
    classpath takes it in place of the one it was built with)."""
    out = r.root / "jar"
    run(["mvn", "-q", "-B", "-Dstyle.color=never", "dependency:copy",
         f"-Dartifact={maven_artifact(r.package, r.version)}", f"-DoutputDirectory={out}"],
        f"{r.name}: mvn", cwd=r.root)
    if not list(out.glob("*.jar")):
        raise ReleaseError(f"{r.name}: mvn copied no jar into {out}")
    return "jar"


def _classpath(r: Release) -> tuple[str, str | None]:
    """The Java runner's classes and its dependencies with the release's jar in place of the
    Bouncy Castle it was built with; or why there is none."""
    out = BUILD / "runners" / "java"
    try:
        deps = (out / "classpath.txt").read_text().strip().split(":")
    except OSError:
        return "", f"the Java runner is not built ({out / 'classpath.txt'} is missing; run 'make runners')"
    jars = sorted(str(j) for j in (r.root / "jar").glob("*.jar"))
    keep = [d for d in deps if d and "/org/bouncycastle/" not in d]
    return ":".join([str(out / "target" / "classes"), *keep, *jars]), None


def argv(r: Release) -> tuple[list[str], str | None]:
    cp, why = _classpath(r)
    # the options of runners/java/run, for the same reasons
    return ["java", "-Xbatch", "-XX:+UnlockDiagnosticVMOptions", "-cp", cp, "cipherbench.Main",
            str(BUILD / "runners" / "java" / "registry.json")], why


# Maven's client has no listing of versions: Maven packages take named versions.
CLIENT = Client(Ecosystem.MAVEN, install, argv, None, maven_artifact)
