package arena

import org.apache.pekko.actor.CoordinatedShutdown
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.slf4j.LoggerFactory
import sun.misc.Signal

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.concurrent.{Await, Promise}
import scala.util.{Failure, Success, Try}

object Main:
  // Created before the actor system, so SLF4J is initialized before Pekko's threads start logging.
  private val log = LoggerFactory.getLogger("arena")

  def main(args: Array[String]): Unit =
    val settings = Settings.fromEnv(sys.env) match
      case Right(settings) => settings
      case Left(error)     =>
        System.err.println(s"config: $error")
        sys.exit(2)
    val helloPage = Try(Files.readAllBytes(Path.of(settings.dataDir, "hello.html"))) match
      case Success(bytes) => bytes
      case Failure(error) =>
        System.err.println(s"cannot read hello.html: $error")
        sys.exit(1)

    val bound = Promise[Http.ServerBinding]()
    val system = ActorSystem(Server(settings, helloPage, bound), "arena", Server.config(settings))
    val binding = Try(Await.result(bound.future, 30.seconds)) match
      case Success(binding) => binding
      case Failure(error)   =>
        System.err.println(s"cannot listen on ${settings.host}:${settings.port}: $error")
        sys.exit(1)
    val address = binding.localAddress
    log.info(
      s"scala server on http://${address.getHostString}:${address.getPort}: cpus=${settings.cpus} " +
        s"bcrypt_cost=${settings.bcryptCost} longpoll=${settings.longPoll} hello_delay=${settings.helloDelay} " +
        s"every ${settings.helloEvery} sort_n=${settings.sortN} data=${settings.dataDir} " +
        s"db=${settings.database.fold("none")(_.jdbcUrl)} db_pool=${settings.dbPool}"
    )

    // The JVM's own SIGTERM handling exits with status 143. Coordinated shutdown instead unbinds, gives answers in
    // flight up to 3 s, stops the actor system and exits with status 0 (Server.config).
    for name <- Seq("TERM", "INT") do
      Signal.handle(
        Signal(name),
        signal =>
          log.info(s"SIG${signal.getName}: stopping")
          CoordinatedShutdown(system).run(Stopped)
      )

  private case object Stopped extends CoordinatedShutdown.Reason
