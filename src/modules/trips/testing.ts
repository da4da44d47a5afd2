/** Fixtures other modules' tests use: scripted drives as detector positions or as decoded tracker records. */
export type { DetectorPosition } from './detector';
export { type DriveOptions, type DriveStep, driveRecord, scriptDrive, seededRandom } from './drive';
