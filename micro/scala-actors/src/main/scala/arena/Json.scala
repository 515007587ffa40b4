package arena

/** Just enough JSON for the one output line. A value is a number, a Boolean, a string, a list of numbers or an Obj. */
object Json {
  final case class Obj(fields: (String, Any)*) {
    def apply(name: String): Any = fields.find(_._1 == name).map(_._2).getOrElse(sys.error(s"no field $name"))
  }

  def render(value: Any): String = value match {
    case text: String => quote(text)
    case obj: Obj     => obj.fields.map { case (name, v) => s"${quote(name)}: ${render(v)}" }.mkString("{", ", ", "}")
    case list: Seq[_] => list.mkString("[", ", ", "]")
    case other        => other.toString
  }

  private def quote(text: String): String = "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\""
}
