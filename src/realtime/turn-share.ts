/**
 * Shares the event loop's turns among many pieces of bulk work (a crowd's replays after a blip):
 * each turn runs at most `perTurn` units of it, in the order asked, and the loop takes its I/O
 * (posts, polls, database answers) before the next turn. Without it, a thousand resumes whose
 * shared read lands at once would send their first slices in one turn, and every request would
 * wait behind them.
 */
export class TurnShare {
  private readonly waiting: { cost: number; go: () => void }[] = [];
  private turnPlanned = false;

  constructor(private readonly perTurn: number) {}

  /** Resolves in a later turn that has room for `cost` units (a piece larger than a turn gets a turn of its own). */
  take(cost: number): Promise<void> {
    return new Promise((go) => {
      this.waiting.push({ cost, go });
      this.planTurn();
    });
  }

  private planTurn(): void {
    if (this.turnPlanned) return;
    this.turnPlanned = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.turnPlanned = false;
    let spent = 0;
    let released = 0;
    while (released < this.waiting.length && spent < this.perTurn) {
      const next = this.waiting[released++] as { cost: number; go: () => void };
      spent += next.cost;
      next.go();
    }
    this.waiting.splice(0, released);
    if (this.waiting.length > 0) this.planTurn();
  }
}
