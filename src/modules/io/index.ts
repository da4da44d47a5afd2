import { defineModule } from '../../composition';
import { createBleDeviceService, createCommandService } from './service';

export type { BleDevice, BleDeviceService, CommandService, QueuedCommand } from './service';

/** The per-unit command queue (tracker settings sent on the next connection). */
export const commandsModule = defineModule({
  name: 'commands',
  needs: [],
  create: (platform) => createCommandService(platform.database, platform.events, platform.clock, platform.queue),
});

/** The accounts' BLE beacons and sensors. */
export const bleDevicesModule = defineModule({
  name: 'bleDevices',
  needs: [],
  create: (platform) => createBleDeviceService(platform.database),
});
