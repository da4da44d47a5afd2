/** Gateway counters, exposed to support staff and printed by the benchmarks. */
export class GatewayMetrics {
  connectionsOpen = 0;
  connectionsTotal = 0;
  framesReceived = 0;
  recordsStored = 0;
  badCrc = 0;
  malformed = 0;
  unknownDevices = 0;
  ingestFailures = 0;
  /** Frame-received to row-committed latencies (ms) since the last reset, for percentiles. */
  private latencies: number[] = [];

  recordLatency(ms: number): void {
    if (this.latencies.length < 1_000_000) this.latencies.push(ms);
  }

  percentile(p: number): number {
    if (this.latencies.length === 0) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  }

  resetLatencies(): void {
    this.latencies = [];
  }

  snapshot() {
    return {
      connectionsOpen: this.connectionsOpen,
      connectionsTotal: this.connectionsTotal,
      framesReceived: this.framesReceived,
      recordsStored: this.recordsStored,
      badCrc: this.badCrc,
      malformed: this.malformed,
      unknownDevices: this.unknownDevices,
      ingestFailures: this.ingestFailures,
      latencyP50Ms: this.percentile(50),
      latencyP99Ms: this.percentile(99),
    };
  }
}
