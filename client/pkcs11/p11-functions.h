/* SPDX-License-Identifier: ISC */
/* The module's PKCS#11 functions, by file, and their places in the function list (module.c). */
#ifndef P11_FUNCTIONS_H
#define P11_FUNCTIONS_H

#include "p11.h"

void p11_pad(unsigned char *dst, size_t size, const char *src);

/* slots.c */
CK_RV p11_C_GetSlotList(CK_BBOOL present, CK_SLOT_ID_PTR list, CK_ULONG_PTR count);
CK_RV p11_C_GetSlotInfo(CK_SLOT_ID slot, CK_SLOT_INFO_PTR info);
CK_RV p11_C_GetTokenInfo(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR info);
CK_RV p11_C_GetMechanismList(CK_SLOT_ID slot, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR count);
CK_RV p11_C_GetMechanismInfo(CK_SLOT_ID slot, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR info);
#define P11_SLOT_FUNCTIONS \
	.C_GetSlotList = p11_C_GetSlotList, \
	.C_GetSlotInfo = p11_C_GetSlotInfo, \
	.C_GetTokenInfo = p11_C_GetTokenInfo, \
	.C_GetMechanismList = p11_C_GetMechanismList, \
	.C_GetMechanismInfo = p11_C_GetMechanismInfo

/* session.c */
CK_RV p11_C_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR app, CK_NOTIFY notify,
	CK_SESSION_HANDLE_PTR out);
CK_RV p11_C_CloseSession(CK_SESSION_HANDLE h);
CK_RV p11_C_CloseAllSessions(CK_SLOT_ID slot);
CK_RV p11_C_GetSessionInfo(CK_SESSION_HANDLE h, CK_SESSION_INFO_PTR info);
CK_RV p11_C_Login(CK_SESSION_HANDLE h, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin, CK_ULONG len);
CK_RV p11_C_Logout(CK_SESSION_HANDLE h);
#define P11_SESSION_FUNCTIONS \
	.C_OpenSession = p11_C_OpenSession, \
	.C_CloseSession = p11_C_CloseSession, \
	.C_CloseAllSessions = p11_C_CloseAllSessions, \
	.C_GetSessionInfo = p11_C_GetSessionInfo, \
	.C_Login = p11_C_Login, \
	.C_Logout = p11_C_Logout

/* objects.c */
CK_RV p11_C_GetAttributeValue(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE obj, CK_ATTRIBUTE_PTR tmpl,
	CK_ULONG count);
CK_RV p11_C_FindObjectsInit(CK_SESSION_HANDLE h, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count);
CK_RV p11_C_FindObjects(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE_PTR out, CK_ULONG max,
	CK_ULONG_PTR count);
CK_RV p11_C_FindObjectsFinal(CK_SESSION_HANDLE h);
#define P11_OBJECT_FUNCTIONS \
	.C_GetAttributeValue = p11_C_GetAttributeValue, \
	.C_FindObjectsInit = p11_C_FindObjectsInit, \
	.C_FindObjects = p11_C_FindObjects, \
	.C_FindObjectsFinal = p11_C_FindObjectsFinal

/* sign.c */
CK_RV p11_C_SignInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR mech, CK_OBJECT_HANDLE key);
CK_RV p11_C_Sign(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR sig,
	CK_ULONG_PTR sig_len);
CK_RV p11_C_SignUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len);
CK_RV p11_C_SignFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR sig, CK_ULONG_PTR sig_len);
CK_RV p11_C_SeedRandom(CK_SESSION_HANDLE h, CK_BYTE_PTR seed, CK_ULONG len);
CK_RV p11_C_GenerateRandom(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG len);
#define P11_SIGN_FUNCTIONS \
	.C_SignInit = p11_C_SignInit, \
	.C_Sign = p11_C_Sign, \
	.C_SignUpdate = p11_C_SignUpdate, \
	.C_SignFinal = p11_C_SignFinal, \
	.C_SeedRandom = p11_C_SeedRandom, \
	.C_GenerateRandom = p11_C_GenerateRandom

/* unsupported.c: everything else. */
#define P11_UNSUPPORTED(name) .C_##name = p11_unsupported_##name
CK_RV p11_unsupported_InitToken(CK_SLOT_ID slot_id, unsigned char *pin, unsigned long pin_len,
	unsigned char *label);
CK_RV p11_unsupported_InitPIN(CK_SESSION_HANDLE session, unsigned char *pin, unsigned long
	pin_len);
CK_RV p11_unsupported_SetPIN(CK_SESSION_HANDLE session, unsigned char *old_pin, unsigned long
	old_len, unsigned char *new_pin, unsigned long new_len);
CK_RV p11_unsupported_GetOperationState(CK_SESSION_HANDLE session, unsigned char
	*operation_state, unsigned long *operation_state_len);
CK_RV p11_unsupported_SetOperationState(CK_SESSION_HANDLE session, unsigned char
	*operation_state, unsigned long operation_state_len, CK_OBJECT_HANDLE encryption_key,
	CK_OBJECT_HANDLE authentiation_key);
CK_RV p11_unsupported_CreateObject(CK_SESSION_HANDLE session, CK_ATTRIBUTE_PTR templ,
	unsigned long count, CK_OBJECT_HANDLE_PTR object);
CK_RV p11_unsupported_CopyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	CK_ATTRIBUTE_PTR templ, unsigned long count, CK_OBJECT_HANDLE_PTR new_object);
CK_RV p11_unsupported_DestroyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object);
CK_RV p11_unsupported_GetObjectSize(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	unsigned long *size);
CK_RV p11_unsupported_SetAttributeValue(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
	CK_ATTRIBUTE_PTR templ, unsigned long count);
CK_RV p11_unsupported_EncryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_Encrypt(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *encrypted_data, unsigned long *encrypted_data_len);
CK_RV p11_unsupported_EncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len);
CK_RV p11_unsupported_EncryptFinal(CK_SESSION_HANDLE session, unsigned char *last_encrypted_part,
	unsigned long *last_encrypted_part_len);
CK_RV p11_unsupported_DecryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_Decrypt(CK_SESSION_HANDLE session, unsigned char *encrypted_data, unsigned
	long encrypted_data_len, unsigned char *data, unsigned long *data_len);
CK_RV p11_unsupported_DecryptUpdate(CK_SESSION_HANDLE session, unsigned char *encrypted_part,
	unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len);
CK_RV p11_unsupported_DecryptFinal(CK_SESSION_HANDLE session, unsigned char *last_part, unsigned
	long *last_part_len);
CK_RV p11_unsupported_DigestInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism);
CK_RV p11_unsupported_Digest(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *digest, unsigned long *digest_len);
CK_RV p11_unsupported_DigestUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len);
CK_RV p11_unsupported_DigestKey(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_DigestFinal(CK_SESSION_HANDLE session, unsigned char *digest, unsigned long
	*digest_len);
CK_RV p11_unsupported_SignRecoverInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_SignRecover(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *signature, unsigned long *signature_len);
CK_RV p11_unsupported_VerifyInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_Verify(CK_SESSION_HANDLE session, unsigned char *data, unsigned long
	data_len, unsigned char *signature, unsigned long signature_len);
CK_RV p11_unsupported_VerifyUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned long
	part_len);
CK_RV p11_unsupported_VerifyFinal(CK_SESSION_HANDLE session, unsigned char *signature, unsigned
	long signature_len);
CK_RV p11_unsupported_VerifyRecoverInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR
	mechanism, CK_OBJECT_HANDLE key);
CK_RV p11_unsupported_VerifyRecover(CK_SESSION_HANDLE session, unsigned char *signature, unsigned
	long signature_len, unsigned char *data, unsigned long *data_len);
CK_RV p11_unsupported_DigestEncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part,
	unsigned long part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len);
CK_RV p11_unsupported_DecryptDigestUpdate(CK_SESSION_HANDLE session, unsigned char
	*encrypted_part, unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len);
CK_RV p11_unsupported_SignEncryptUpdate(CK_SESSION_HANDLE session, unsigned char *part, unsigned
	long part_len, unsigned char *encrypted_part, unsigned long *encrypted_part_len);
CK_RV p11_unsupported_DecryptVerifyUpdate(CK_SESSION_HANDLE session, unsigned char
	*encrypted_part, unsigned long encrypted_part_len, unsigned char *part, unsigned long *part_len);
CK_RV p11_unsupported_GenerateKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_ATTRIBUTE_PTR templ, unsigned long count, CK_OBJECT_HANDLE_PTR key);
CK_RV p11_unsupported_GenerateKeyPair(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_ATTRIBUTE_PTR public_key_template, unsigned long public_key_attribute_count,
	CK_ATTRIBUTE_PTR private_key_template, unsigned long private_key_attribute_count, CK_OBJECT_HANDLE
	*public_key, CK_OBJECT_HANDLE_PTR private_key);
CK_RV p11_unsupported_WrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key, unsigned char *wrapped_key, unsigned long
	*wrapped_key_len);
CK_RV p11_unsupported_UnwrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE unwrapping_key, unsigned char *wrapped_key, unsigned long wrapped_key_len,
	CK_ATTRIBUTE_PTR templ, unsigned long attribute_count, CK_OBJECT_HANDLE_PTR key);
CK_RV p11_unsupported_DeriveKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	CK_OBJECT_HANDLE base_key, CK_ATTRIBUTE_PTR templ, unsigned long attribute_count,
	CK_OBJECT_HANDLE_PTR key);
CK_RV p11_unsupported_WaitForSlotEvent(CK_FLAGS flags, CK_SLOT_ID_PTR slot, void *reserved);
CK_RV p11_C_GetFunctionStatus(CK_SESSION_HANDLE h);
CK_RV p11_C_CancelFunction(CK_SESSION_HANDLE h);
#define P11_UNSUPPORTED_FUNCTIONS \
	P11_UNSUPPORTED(InitToken), P11_UNSUPPORTED(InitPIN), P11_UNSUPPORTED(SetPIN), \
	P11_UNSUPPORTED(GetOperationState), P11_UNSUPPORTED(SetOperationState), \
	P11_UNSUPPORTED(CreateObject), P11_UNSUPPORTED(CopyObject), \
	P11_UNSUPPORTED(DestroyObject), P11_UNSUPPORTED(GetObjectSize), \
	P11_UNSUPPORTED(SetAttributeValue), P11_UNSUPPORTED(EncryptInit), \
	P11_UNSUPPORTED(Encrypt), P11_UNSUPPORTED(EncryptUpdate), P11_UNSUPPORTED(EncryptFinal), \
	P11_UNSUPPORTED(DecryptInit), P11_UNSUPPORTED(Decrypt), P11_UNSUPPORTED(DecryptUpdate), \
	P11_UNSUPPORTED(DecryptFinal), P11_UNSUPPORTED(DigestInit), P11_UNSUPPORTED(Digest), \
	P11_UNSUPPORTED(DigestUpdate), P11_UNSUPPORTED(DigestKey), P11_UNSUPPORTED(DigestFinal), \
	P11_UNSUPPORTED(SignRecoverInit), P11_UNSUPPORTED(SignRecover), \
	P11_UNSUPPORTED(VerifyInit), P11_UNSUPPORTED(Verify), P11_UNSUPPORTED(VerifyUpdate), \
	P11_UNSUPPORTED(VerifyFinal), P11_UNSUPPORTED(VerifyRecoverInit), \
	P11_UNSUPPORTED(VerifyRecover), P11_UNSUPPORTED(DigestEncryptUpdate), \
	P11_UNSUPPORTED(DecryptDigestUpdate), P11_UNSUPPORTED(SignEncryptUpdate), \
	P11_UNSUPPORTED(DecryptVerifyUpdate), P11_UNSUPPORTED(GenerateKey), \
	P11_UNSUPPORTED(GenerateKeyPair), P11_UNSUPPORTED(WrapKey), P11_UNSUPPORTED(UnwrapKey), \
	P11_UNSUPPORTED(DeriveKey),  \
	P11_UNSUPPORTED(WaitForSlotEvent), \
	.C_GetFunctionStatus = p11_C_GetFunctionStatus, \
	.C_CancelFunction = p11_C_CancelFunction

#endif
