// A process's mailbox: any number of senders, one receiver (the process that owns it).
// A send never blocks; receive() returns a promise that the next message resolves, so a process
// waiting for a message is an async function suspended at `await`, holding no thread.
export class Mailbox {
  #messages = [];
  #waiting = null;

  send(message) {
    const resolve = this.#waiting;
    if (resolve) {
      this.#waiting = null;
      resolve(message);
    } else {
      this.#messages.push(message);
    }
  }

  receive() {
    if (this.#messages.length > 0) {
      return Promise.resolve(this.#messages.shift());
    }
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }
}
