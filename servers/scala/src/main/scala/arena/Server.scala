package arena

import com.typesafe.config.{Config, ConfigFactory}
import org.apache.pekko.Done
import org.apache.pekko.actor.CoordinatedShutdown
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorSystem, Behavior, DispatcherSelector}
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.HttpMethod
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.util.ByteString

import scala.concurrent.{Future, Promise}
import scala.concurrent.duration.*

object Server:
  /** The guardian actor: spawns the two stores, opens the database pool, serves the routes, and completes `bound` with
    * the binding.
    */
  def apply(settings: Settings, helloPage: Array[Byte], bound: Promise[Http.ServerBinding]): Behavior[Nothing] =
    Behaviors.setup[Nothing] { context =>
      given system: ActorSystem[Nothing] = context.system
      val blocking = system.dispatchers.lookup(DispatcherSelector.fromConfig("arena.blocking-dispatcher"))
      val passwords = Passwords(context.spawn(Store[String](), "passwords"), settings.bcryptCost, blocking)
      val users = context.spawn(Store[ByteString](), "users")
      val database = system.dispatchers.lookup(DispatcherSelector.fromConfig("arena.database-dispatcher"))
      val pool = settings.database.map(Records.pool(_, settings.dbPool))
      for pool <- pool do
        CoordinatedShutdown(system).addTask(
          CoordinatedShutdown.PhaseBeforeActorSystemTerminate,
          "close-database-pool"
        ) { () =>
          Future { pool.close(); Done }(using database)
        }
      val routes = Routes(settings, helloPage, passwords, users, Records(pool, database), blocking)
      bound.completeWith(
        Http()
          .newServerAt(settings.host, settings.port)
          .withSettings(serverSettings)
          .bind(routes.route)
          .map(_.addToCoordinatedShutdown(hardTerminationDeadline = 3.seconds))(using system.executionContext)
      )
      Behaviors.empty
    }

  /** Pekko's server settings, with the methods HTTP has gained since Pekko's own list (QUERY) parsed: a known path then
    * answers them 405, as the contract says of every method it does not list, where the parser would answer 501.
    */
  private def serverSettings(using system: ActorSystem[Nothing]): ServerSettings =
    val defaults = ServerSettings(system)
    defaults.withParserSettings(defaults.parserSettings.withCustomMethods(HttpMethod.custom("QUERY")))

  /** application.conf with the core budget applied. The default dispatcher gets exactly `cpus` threads (Pekko's
    * fork-join default would be at least 8), and Pekko's own actors (TCP connections, stream supervisors) share it
    * instead of a second pool, so all non-blocking work runs on those threads; the blocking pool gets `cpus` more. The
    * database dispatcher gets one thread per pooled connection. A finished coordinated shutdown ends the JVM with
    * status 0.
    */
  def config(settings: Settings): Config =
    val cpus = settings.cpus
    ConfigFactory
      .parseString(s"""
        |pekko.actor.default-dispatcher.fork-join-executor { parallelism-min = $cpus, parallelism-max = $cpus }
        |pekko.actor.internal-dispatcher = pekko.actor.default-dispatcher
        |arena.blocking-dispatcher.thread-pool-executor.fixed-pool-size = $cpus
        |arena.database-dispatcher.thread-pool-executor.fixed-pool-size = ${settings.dbPool}
        |pekko.coordinated-shutdown.exit-jvm = on
        |""".stripMargin)
      .withFallback(ConfigFactory.load())
