import { encodeLocation, encodeLogin } from '../gt06';
import { encodeOsmandQuery } from '../osmand';
import { encodeAvlFrame, encodeCodec12Response, encodeImeiFrame } from '../teltonika';
import type { DecodedRecord } from '../../lib/tracker-record';
import { SimulatedVehicle, type VehicleSample } from './vehicle';

export type SimulatedProtocol = 'teltonika' | 'gt06' | 'osmand';

/** What moves a simulated tracker: its state at a moment, advanced in steps. */
export interface VehicleModel {
  step(nowMs: number, stepS: number): VehicleSample;
}

export interface FleetOptions {
  host: string;
  ports: { teltonika: number; gt06: number; osmand: number };
  /** `vehicle` drives the device (by default a SimulatedVehicle started at the fleet's start). */
  devices: Array<{ imei: string; protocol?: SimulatedProtocol; vehicle?: (startMs: number) => VehicleModel }>;
  /** Protocol for devices that name none. */
  protocol?: SimulatedProtocol;
  /** Real milliseconds between two frames of one device. */
  intervalMs: number;
  /** Records per Teltonika frame (a device that buffers several fixes); GT06 and OsmAnd send one. */
  recordsPerFrame?: number;
  /** Simulated seconds per real second; 1 for live demo traffic. */
  speedup?: number;
  /** Called with each acknowledged frame: records in it and milliseconds from send to acknowledgement. */
  onAck?: (records: number, latencyMs: number) => void;
  onError?: (imei: string, error: string) => void;
}

/** BLE temperature sensor #1 (IO 25, 0.01 °C) as an FMB device reports it. */
const IO_BLE_TEMPERATURE_1 = 25;

export function teltonikaRecord(imei: string, sample: VehicleSample): DecodedRecord {
  return {
    protocol: 'teltonika',
    deviceId: imei,
    time: sample.time,
    latitude: sample.latitude,
    longitude: sample.longitude,
    altitude: 25,
    speedKmh: sample.speedKmh,
    course: sample.course,
    satellites: sample.satellites,
    valid: true,
    priority: 0,
    eventId: 0,
    io: {
      239: sample.ignition ? 1 : 0,
      240: sample.movement ? 1 : 0,
      21: 4,
      66: sample.externalVoltageMv,
      16: sample.odometerM,
      [IO_BLE_TEMPERATURE_1]: Math.round(sample.temperatureC * 100) & 0xffff,
    },
    normalized: {},
  };
}

/** What a Teltonika tracker answers to a Codec 12 command: `setparam` confirms the values it set. */
export function simulatedAnswer(command: string): string {
  const text = command.trim();
  const setparam = /^setparam\s+(.+)$/i.exec(text);
  if (setparam) return `New value ${setparam[1]!.trim()}`;
  if (/^getver$/i.test(text)) return 'Ver:03.28.07_04 GPS:AXN_5.10_3333 Hw:FMB920 Mod:15 IMEI:simulated';
  if (/^getstatus$/i.test(text)) return 'Data Link: 1 GPRS: 1 Phone: 0 SIM: 0 OP: 24001 Signal: 5 NewSMS: 0 Roaming: 0 SMSFull: 0 LAC: 1 Cell ID: 1';
  return `${text} OK`;
}

/** One simulated tracker on a real socket: connects, logs in, reports, waits for each ACK, reconnects. */
class DeviceSession {
  private socket: Awaited<ReturnType<typeof Bun.connect>> | null = null;
  private buffer = new Uint8Array(0);
  private waiter: { bytes: number; resolve: (data: Uint8Array) => void; reject: (error: Error) => void } | null = null;
  private serial = 1;

  constructor(
    private readonly options: FleetOptions,
    readonly imei: string,
    readonly protocol: SimulatedProtocol,
    readonly vehicle: VehicleModel,
  ) {}

  private receive(chunk: Uint8Array) {
    const merged = new Uint8Array(this.buffer.length + chunk.length);
    merged.set(this.buffer);
    merged.set(chunk, this.buffer.length);
    this.buffer = merged;
    if (this.protocol !== 'teltonika') {
      this.settle();
      return;
    }
    // A command may follow the ACK (or the login's reply) in one chunk: each is taken off once it heads the buffer.
    for (let length = -1; length !== this.buffer.length; ) {
      length = this.buffer.length;
      this.answerCommands();
      this.settle();
    }
  }

  /**
   * Codec 12 commands the server sends while the device is idle (after an ACK, never inside one): each is taken off the
   * stream and answered with a Codec 12 response (type 0x06), as a tracker does, so settings sent to a simulated
   * tracker (an operating mode, theft mode) are confirmed. A command frame opens with four zero bytes, where an ACK is
   * a record count of at least one.
   */
  private answerCommands() {
    while (this.buffer.length >= 8 && this.buffer[0] === 0 && this.buffer[1] === 0 && this.buffer[2] === 0 && this.buffer[3] === 0) {
      const length = new DataView(this.buffer.buffer, this.buffer.byteOffset + 4, 4).getUint32(0);
      if (this.buffer.length < 8 + length + 4) return;
      const body = this.buffer.slice(8, 8 + length);
      this.buffer = this.buffer.slice(8 + length + 4);
      // Codec 12 (0x0C), one command (0x05): the text's length at 3, the text from 7.
      if (body[0] !== 0x0c || body[2] !== 0x05) continue;
      const size = new DataView(body.buffer, body.byteOffset + 3, 4).getUint32(0);
      const command = new TextDecoder().decode(body.slice(7, 7 + size));
      this.socket?.write(encodeCodec12Response(simulatedAnswer(command)));
    }
  }

  private settle() {
    const waiter = this.waiter;
    if (!waiter || this.buffer.length < waiter.bytes) return;
    this.waiter = null;
    const data = this.buffer.slice(0, waiter.bytes);
    this.buffer = this.buffer.slice(waiter.bytes);
    waiter.resolve(data);
  }

  private read(bytes: number, timeoutMs = 15_000): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error('no reply from server'));
      }, timeoutMs);
      this.waiter = {
        bytes,
        resolve: (data) => {
          clearTimeout(timer);
          resolve(data);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.settle();
    });
  }

  private async connect(port: number) {
    this.buffer = new Uint8Array(0);
    this.socket = await Bun.connect({
      hostname: this.options.host,
      port,
      socket: {
        data: (_socket, chunk) => this.receive(chunk),
        close: () => {
          this.socket = null;
          this.waiter?.reject(new Error('connection closed'));
          this.waiter = null;
        },
        error: () => {
          this.socket = null;
        },
      },
    });
  }

  /** Opens the connection and performs the protocol's login. */
  async open(): Promise<void> {
    if (this.protocol === 'teltonika') {
      await this.connect(this.options.ports.teltonika);
      this.socket!.write(encodeImeiFrame(this.imei));
      const [accepted] = await this.read(1);
      if (accepted !== 1) throw new Error(`IMEI ${this.imei} refused`);
    } else if (this.protocol === 'gt06') {
      await this.connect(this.options.ports.gt06);
      this.socket!.write(encodeLogin({ imei: this.imei, serial: this.nextSerial() }));
      await this.read(10);
    }
  }

  get connected(): boolean {
    return this.protocol === 'osmand' || this.socket !== null;
  }

  private nextSerial(): number {
    this.serial = (this.serial % 0xffff) + 1;
    return this.serial;
  }

  /** Sends the samples as one frame (GT06 and OsmAnd: one per sample) and waits for acknowledgement. */
  async send(samples: VehicleSample[]): Promise<void> {
    const started = performance.now();
    if (this.protocol === 'teltonika') {
      const frame = encodeAvlFrame(0x8e, samples.map((sample) => teltonikaRecord(this.imei, sample)));
      this.socket!.write(frame);
      const ack = await this.read(4);
      const count = new DataView(ack.buffer, ack.byteOffset, 4).getUint32(0);
      if (count !== samples.length) throw new Error(`ACK ${count} for ${samples.length} records`);
    } else if (this.protocol === 'gt06') {
      for (const sample of samples) {
        this.socket!.write(
          encodeLocation({
            serial: this.nextSerial(),
            time: sample.time,
            latitude: sample.latitude,
            longitude: sample.longitude,
            speedKmh: sample.speedKmh,
            course: sample.course,
            satellites: Math.min(15, sample.satellites),
            valid: true,
            acc: sample.ignition,
            mcc: 240,
            mnc: 1,
            lac: 1234,
            cellId: 5678,
          }),
        );
        await this.read(10);
      }
    } else {
      for (const sample of samples) {
        const query = encodeOsmandQuery({
          id: this.imei,
          time: sample.time,
          latitude: sample.latitude,
          longitude: sample.longitude,
          speedKmh: sample.speedKmh,
          course: sample.course,
          altitude: 25,
          valid: true,
          ignition: sample.ignition,
          batteryPct: 90,
          attributes: { odometer: sample.odometerM },
        });
        const response = await fetch(`http://${this.options.host}:${this.options.ports.osmand}/?${query}`, { method: 'POST' });
        if (!response.ok) throw new Error(`OsmAnd report refused: HTTP ${response.status}`);
      }
    }
    this.options.onAck?.(samples.length, performance.now() - started);
  }

  close() {
    this.socket?.end();
    this.socket = null;
  }
}

/**
 * Drives a fleet of simulated trackers over real sockets until stopped. Each device reports every
 * `intervalMs` with `recordsPerFrame` fixes, advancing its vehicle by `intervalMs × speedup` of simulated
 * time; a refused or dropped connection is retried with back-off, as a real tracker does.
 */
export function startFleet(options: FleetOptions) {
  const speedup = options.speedup ?? 1;
  const perFrame = Math.max(1, options.recordsPerFrame ?? 1);
  let running = true;
  const startMs = Date.now();
  const sessions = options.devices.map(
    (device, index) =>
      new DeviceSession(
        options,
        device.imei,
        device.protocol ?? options.protocol ?? 'teltonika',
        device.vehicle?.(startMs) ?? new SimulatedVehicle(index, startMs),
      ),
  );

  async function drive(session: DeviceSession, index: number) {
    // Each device reports on its own fixed grid, its phase spread over one interval, as real trackers keep
    // their own clocks: the load stays even however long a connect or an ACK takes (sleeping a whole
    // interval after each send would bunch the fleet up behind any slow moment and keep it bunched).
    let dueMs = startMs + (options.intervalMs * index) / Math.max(1, sessions.length);
    await Bun.sleep(Math.max(0, dueMs - Date.now()));
    let backoffMs = 1000;
    let clockMs = Date.now();
    while (running) {
      try {
        if (!session.connected) await session.open();
        backoffMs = 1000;
        const stepMs = (options.intervalMs * speedup) / perFrame;
        // In real time (speedup 1) a device that was away catches up to now, as a real one would.
        if (speedup === 1) clockMs = Math.max(clockMs, Date.now() - options.intervalMs);
        const samples: VehicleSample[] = [];
        for (let i = 0; i < perFrame; i++) {
          clockMs += stepMs;
          samples.push(session.vehicle.step(clockMs, stepMs / 1000));
        }
        await session.send(samples);
      } catch (error) {
        if (!running) break; // stop() closed the socket under a pending send
        options.onError?.(session.imei, error instanceof Error ? error.message : String(error));
        session.close();
        await Bun.sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 60_000);
        continue;
      }
      // The next slot of this device's grid still ahead (a send that overran skips the slots it missed).
      dueMs += options.intervalMs * Math.max(1, Math.ceil((Date.now() - dueMs) / options.intervalMs));
      await Bun.sleep(Math.max(0, dueMs - Date.now()));
    }
  }

  const loops = sessions.map((session, index) => drive(session, index));

  return {
    sessions,
    async stop() {
      running = false;
      for (const session of sessions) session.close();
      await Promise.allSettled(loops);
    },
  };
}
export type Fleet = ReturnType<typeof startFleet>;
