export * from './channel';
export { emailChannel } from './email';
export { embeddedPushChannel, generateVapidKeys, type PushPayload, type VapidKeys, webPushChannel } from './push';
export { embeddedSmsChannel, smsText, type TwilioSettings, twilioSmsChannel } from './sms';
