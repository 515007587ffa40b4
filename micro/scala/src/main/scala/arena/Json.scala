package arena

/** Just enough JSON for the one output line. */
object Json:
  type Value = Int | Long | Double | Boolean | String | Seq[Long] | Seq[Double] | Obj

  final case class Obj(fields: (String, Value)*):
    def apply(name: String): Value = fields.find(_._1 == name).map(_._2).getOrElse(sys.error(s"no field $name"))

  def render(value: Value): String = value match
    case text: String => quote(text)
    case obj: Obj     => obj.fields.map((name, v) => s"${quote(name)}: ${render(v)}").mkString("{", ", ", "}")
    case list: Seq[?] => list.mkString("[", ", ", "]")
    case other        => other.toString

  private def quote(text: String): String = "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\""
